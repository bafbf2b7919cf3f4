// `ip netns`: iproute2's ip/ipnetns.c for add, del and list. A simulated
// namespace has a name but no file: the messages name the file ip would
// have created under /run/netns.

package iproute

import (
	"errors"
	"slices"
	"strings"
	"syscall"

	"github.com/netsimlab/netsim/rtnl"
)

const netnsUsage = `Usage:	ip netns list
	ip netns add NAME
	ip netns delete NAME
	ip netns exec NAME ip ARGS...
	ip netns exec NAME sysctl [-w] [-q] KEY=VALUE...
`

// netnsExec is `ip netns exec NAME CMD...` for the two commands a
// simulated namespace can run: ip itself, and sysctl to set the sysctls
// rtnl.Handle.Sysctl models. It fails, as a command of a batch, when the
// command exits with a non-zero status.
func (ip *IP) netnsExec(argv []string) error {
	if len(argv) < 1 {
		return failf("No netns name specified\n")
	}
	if len(argv) < 2 {
		return failf("No command specified\n")
	}
	name, prog, args := argv[0], argv[1], argv[2:]
	n := ip.k.Net(name)
	if n == nil {
		return failf("Cannot open network namespace \"%s\": No such file or directory\n", name)
	}
	switch strings.TrimPrefix(prog, "/usr/sbin/") {
	case "ip", "/sbin/ip", "/bin/ip":
		// The child ip prints its own output and errors.
		if err := ip.out.Flush(); err != nil {
			return err
		}
		// The child's command is part of this one: AfterCommand sees it once.
		family, netns, out, after := ip.family, ip.netns, ip.out, ip.AfterCommand
		ip.AfterCommand = nil
		st := ip.Main(append([]string{"-n", name}, args...))
		ip.family, ip.netns, ip.out, ip.AfterCommand = family, netns, out, after
		ip.out.Reset(ip.Stdout)
		if st != 0 {
			return &cmdError{status: st}
		}
		return nil
	case "sysctl", "/sbin/sysctl":
		return ip.sysctl(n.Handle(ip.t), args)
	}
	return failf("exec of \"%s\" failed: netsim runs only ip and sysctl in a namespace\n", prog)
}

// sysctl is `sysctl [-w] [-q] KEY=VALUE...` on the namespace's sysctls.
func (ip *IP) sysctl(h *rtnl.Handle, args []string) error {
	quiet := false
	for _, a := range args {
		switch a {
		case "-w":
			continue
		case "-q":
			quiet = true
			continue
		}
		key, val, ok := strings.Cut(a, "=")
		if !ok {
			return failf("sysctl: reading keys is not supported by netsim: \"%s\"\n", a)
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if err := h.Sysctl(key, val); err != nil {
			return failf("sysctl: cannot stat /proc/sys/%s: No such file or directory\n", strings.ReplaceAll(key, ".", "/"))
		}
		if !quiet {
			ip.printf("%s = %s\n", key, val)
		}
	}
	return nil
}

func (ip *IP) doNetns(_ *rtnl.Handle, argv []string) error {
	if len(argv) == 0 {
		return ip.netnsList()
	}
	cmd, rest := argv[0], argv[1:]
	switch {
	case matches(cmd, "list"), matches(cmd, "show"), matches(cmd, "lst"):
		return ip.netnsList()
	case matches(cmd, "add"):
		if len(rest) != 1 {
			return failf("No netns name specified\n")
		}
		name := rest[0]
		if !rtnl.ValidNetnsName(name) {
			return &argError{msg: "Invalid netns name \"" + name + "\"\n", status: exitArg}
		}
		if _, err := ip.k.NewNet(ip.t, name); err != nil {
			if errors.Is(err, syscall.EEXIST) {
				return failf("Cannot create namespace file \"/run/netns/%s\": File exists\n", name)
			}
			return err
		}
		return nil
	case matches(cmd, "delete"):
		if len(rest) != 1 {
			return failf("No netns name specified\n")
		}
		if err := ip.k.DelNet(ip.t, rest[0]); err != nil {
			if errors.Is(err, syscall.ENOENT) {
				return failf("Cannot remove namespace file \"/run/netns/%s\": No such file or directory\n", rest[0])
			}
			return err
		}
		return nil
	case matches(cmd, "exec"):
		return ip.netnsExec(rest)
	case matches(cmd, "help"):
		return usageErr(netnsUsage)
	}
	return unknownCmd(cmd, "netns")
}

// netnsList lists the namespaces newest name first, the order in which a
// tmpfs /run/netns returns them when they were created in name order.
func (ip *IP) netnsList() error {
	names := ip.k.NetNames()
	slices.Reverse(names)
	for _, n := range names {
		ip.printf("%s\n", n)
	}
	return nil
}
