// Package nsstate takes the state the container examples (dockerbridge,
// cnibridge) leave behind — in the host namespace and in each container's,
// what `ip -br link`, `ip -br addr`, `ip route` and `ip -6 route` print —
// on netsim and on the real kernel, as one golden text, so that an
// example's test holds netsim's result to the one Linux gave for the same
// ip script.
package nsstate

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/netsimlab/netsim/internal/golden"
	"github.com/netsimlab/netsim/internal/kerneldiff"
	"github.com/netsimlab/netsim/iproute"
	"github.com/netsimlab/netsim/rtnl"
)

// Dumps are the commands whose output makes up the state, run in every
// namespace.
var Dumps = [][]string{
	{"-br", "link", "show"},
	{"-br", "addr", "show"},
	{"route", "show"},
	{"-6", "route", "show"},
}

// section names the output of dump in namespace ns ("" for the host's).
func section(ns string, dump []string) string {
	where := "host"
	if ns != "" {
		where = "netns " + ns
	}
	return where + ": ip " + strings.Join(dump, " ")
}

// Render is the golden text of outputs, one section per namespace and
// dump, in the order of namespaces (the host's first) and Dumps.
func Render(comment string, namespaces []string, outputs map[string]string) string {
	var b strings.Builder
	b.WriteString(comment)
	for _, ns := range append([]string{""}, namespaces...) {
		for _, d := range Dumps {
			name := section(ns, d)
			golden.WriteSection(&b, name, outputs[name])
		}
	}
	return b.String()
}

// Netsim runs the dumps on kernel k, in the initial namespace and in
// each of namespaces, after letting k's deferred work (duplicate address
// detection, carrier changes) finish; it returns them as Render takes
// them.
func Netsim(k *rtnl.Kernel, namespaces []string) (map[string]string, error) {
	t := k.World().NewTask("ip")
	k.Settle(t)
	ip := iproute.New(k, t)
	out := map[string]string{}
	for _, ns := range append([]string{""}, namespaces...) {
		for _, d := range Dumps {
			args := d
			if ns != "" {
				args = append([]string{"-n", ns}, d...)
			}
			stdout, stderr, status := ip.Output(args...)
			if status != 0 || stderr != "" {
				return nil, fmt.Errorf("ip %s: exit status %d: %s", strings.Join(args, " "), status, stderr)
			}
			out[section(ns, d)] = stdout
		}
	}
	return out, nil
}

// Available reports why the real kernel cannot be used (nil if it can):
// root, unshare and iproute2 6.1, as kerneldiff needs them.
func Available() error { return kerneldiff.Available() }

// Real runs `ip -batch script` in a new network namespace of the running
// kernel (and a new mount namespace with its own /run/netns, so that `ip
// netns add` touches nothing outside), waits settle for the kernel's
// deferred work (linkwatch, addrconf), and returns the dumps as Render
// takes them.
func Real(script string, namespaces []string, settle time.Duration) (map[string]string, error) {
	if err := Available(); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "nsstate")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	abs, err := filepath.Abs(script)
	if err != nil {
		return nil, err
	}
	var sh strings.Builder
	sh.WriteString("mount --make-rprivate / && mkdir -p /run/netns && mount -t tmpfs tmpfs /run/netns || exit 99\n")
	fmt.Fprintf(&sh, "ip -batch '%s' || exit 98\n", abs)
	fmt.Fprintf(&sh, "sleep %.3f\n", settle.Seconds())
	var names []string
	for _, ns := range append([]string{""}, namespaces...) {
		for _, d := range Dumps {
			args := d
			if ns != "" {
				args = append([]string{"-n", ns}, d...)
			}
			file := filepath.Join(dir, fmt.Sprint(len(names)))
			names = append(names, section(ns, d))
			fmt.Fprintf(&sh, "ip %s > '%s' || exit 97\n", strings.Join(args, " "), file)
		}
	}
	var stderr bytes.Buffer
	cmd := exec.Command("unshare", "-n", "-m", "sh", "-c", sh.String())
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("on the real kernel: %v: %s", err, stderr.String())
	}
	if stderr.Len() > 0 {
		return nil, errors.New("on the real kernel: " + stderr.String())
	}
	out := map[string]string{}
	for i, name := range names {
		data, err := os.ReadFile(filepath.Join(dir, fmt.Sprint(i)))
		if err != nil {
			return nil, err
		}
		out[name] = string(data)
	}
	return out, nil
}
