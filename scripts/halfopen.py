# halfopen.py N PORT SECONDS: opens N TCP connections to 127.0.0.1:PORT that never
# send a request and holds them SECONDS (docs/performance.md, "Connection floods").
import socket, sys, time
n = int(sys.argv[1]); port = int(sys.argv[2]); hold = float(sys.argv[3])
socks = []
refused = 0
for i in range(n):
    s = socket.socket()
    s.setblocking(False)
    try:
        s.connect(("127.0.0.1", port))
    except BlockingIOError:
        pass
    except OSError:
        refused += 1
        s.close(); continue
    socks.append(s)
print("opened", len(socks), "refused", refused, flush=True)
time.sleep(hold)
