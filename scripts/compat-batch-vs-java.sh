#!/bin/sh
# compat-batch-vs-java.sh: 100 Avro pairs (old = the first 100 .avsc of a synthetic
# 10,000-subject tree, new = the same with an optional field added) checked BACKWARD by
# one `contractbot compat --batch` process and by Avro Java's SchemaCompatibility in one
# JVM (Debian's libavro-java: apt-get install libavro-java; javac and java on PATH).
# The Java file is written and compiled under a temporary directory here, never in the
# repository. Prints GNU time's whole-process figures for five alternating pairs of runs
# (A = contractbot, B = one JVM doing the 100 pairs once) and the warm JVM's time per 100 pairs after JIT warm-up.
# Run from the repository root: sh scripts/compat-batch-vs-java.sh
set -eu
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/contractbot" ./cmd/contractbot
go run ./cmd/synthrepo -subjects 10000 -commits 1 -seed 1 -checkout "$work/repo" >/dev/null
find "$work/repo" -name '*.avsc' | sort | head -100 >"$work/olds.txt"
mkdir "$work/new"
python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
pairs, lst = open(w + "/pairs.jsonl", "w"), open(w + "/pairs.txt", "w")
for i, o in enumerate(open(w + "/olds.txt").read().split()):
    s = json.load(open(o))
    s["fields"].append({"name": "extra_note", "type": ["null", "string"], "default": None})
    n = "%s/new/%d.avsc" % (w, i)
    json.dump(s, open(n, "w"), indent=2)
    pairs.write(json.dumps({"id": str(i), "format": "avro", "level": "BACKWARD",
                            "old": [{"path": o}], "new": {"path": n}}) + "\n")
    lst.write("%s %s\n" % (o, n))
PY
cat >"$work/Bench.java" <<'JAVA'
import java.nio.file.*;
import java.util.*;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;

public class Bench {
  static int run(List<String[]> pairs) throws Exception {
    int ok = 0;
    for (String[] p : pairs) {
      Schema w = new Schema.Parser().parse(new String(Files.readAllBytes(Paths.get(p[0]))));
      Schema r = new Schema.Parser().parse(new String(Files.readAllBytes(Paths.get(p[1]))));
      if (SchemaCompatibility.checkReaderWriterCompatibility(r, w).getType()
          == SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE) ok++;
    }
    return ok;
  }
  public static void main(String[] a) throws Exception {
    List<String[]> pairs = new ArrayList<>();
    for (String l : Files.readAllLines(Paths.get(a[0]))) pairs.add(l.split(" "));
    int warm = Integer.parseInt(a[1]), reps = Integer.parseInt(a[2]);
    for (int i = 0; i < warm; i++) run(pairs);
    long t0 = System.nanoTime();
    int ok = 0;
    for (int i = 0; i < reps; i++) ok = run(pairs);
    System.out.printf("%d/%d compatible; %.2f ms per %d pairs (after %d warm-up passes)%n",
        ok, pairs.size(), (System.nanoTime() - t0) / 1e6 / reps, pairs.size(), warm);
  }
}
JAVA
j=/usr/share/java
cp="$work:$j/avro.jar:$j/jackson-core-asl.jar:$j/jackson-mapper-asl.jar:$j/slf4j-api.jar"
javac -cp "$cp" -d "$work" "$work/Bench.java"
fmt='%e s wall, %U+%S s CPU, %M KiB peak'
for i in 1 2 3 4 5; do
  /usr/bin/time -f "A $fmt" "$work/contractbot" compat --batch "$work/pairs.jsonl" >/dev/null
  /usr/bin/time -f "B $fmt" java -cp "$cp" Bench "$work/pairs.txt" 0 1 >/dev/null
done
java -cp "$cp" Bench "$work/pairs.txt" 20 50 2>/dev/null
