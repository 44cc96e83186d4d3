//go:build unix

package gitrepo

import (
	"context"
	"io"
	"os/exec"
	"syscall"
	"time"
)

// runHook runs the fsmonitor hook as Git runs a hook that is a shell command (`sh -c
// 'HOOK "$@"' HOOK 2 TOKEN`) in root, in a process group of its own, so that at the
// deadline the hook and whatever it started are killed.
func runHook(ctx context.Context, root, hook, token string, stdout, stderr io.Writer) error {
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", hook+` "$@"`, hook, "2", token)
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second // a process that escaped the group and keeps the pipes
	return cmd.Run()
}
