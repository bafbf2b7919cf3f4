package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/netsimlab/netsim/internal/kerneldiff"
)

func TestDiffUsage(t *testing.T) {
	var out, errb bytes.Buffer
	if st := diffMain(nil, &out, &errb); st != 2 || !strings.Contains(errb.String(), "usage: netsim diff") {
		t.Fatalf("no arguments: status %d, %q", st, errb.String())
	}
	errb.Reset()
	if st := diffMain([]string{"/nonexistent/script.ip"}, &out, &errb); st != 2 {
		t.Fatalf("missing file: status %d", st)
	}
	out.Reset()
	if st := diffMain([]string{"-gen", "3", "-steps", "8", "-print"}, &out, &errb); st != 0 || strings.Count(out.String(), "\n") != 8 {
		t.Fatalf("-print: status %d, %q", st, out.String())
	}
}

func TestDiffRealKernel(t *testing.T) {
	dir := t.TempDir()
	same := filepath.Join(dir, "same.ip")
	differs := filepath.Join(dir, "differs.ip")
	os.WriteFile(same, []byte("ip link add a0 type veth peer name b0\nip link set a0 up\nip route add 10.0.0.0/8 dev a0\n"), 0o644)
	// netsim refuses to change the loopback device's address (iproute's testdata/differences.txt).
	os.WriteFile(differs, []byte("link add a0 type veth peer name b0\nlink set a0 up\n# lo's address\nlink set lo address 02:00:00:00:00:01\n"), 0o644)
	var out, errb bytes.Buffer
	st := diffMain([]string{same}, &out, &errb)
	if err := kerneldiff.Available(); err != nil {
		if st != 2 || !strings.Contains(errb.String(), "the real kernel is unavailable") {
			t.Fatalf("without the real kernel: status %d, %q", st, errb.String())
		}
		t.Skipf("no private network namespace on the real kernel: %v", err)
	}
	if st != 0 || out.String() != "no difference after 3 steps\n" {
		t.Fatalf("same: status %d, %q %q", st, out.String(), errb.String())
	}
	out.Reset()
	if st := diffMain([]string{differs}, &out, &errb); st != 1 || !strings.HasPrefix(out.String(), "line 4: ip link set lo address 02:00:00:00:00:01\n") {
		t.Fatalf("differs: status %d, %q", st, out.String())
	}
}
