// `ip netns`: iproute2's ip/ipnetns.c for add, del and list. A simulated
// namespace has a name but no file: the messages name the file ip would
// have created under /run/netns.

package iproute

import (
	"errors"
	"strings"
	"syscall"

	"github.com/netsimlab/netsim/rtnl"
)

// netnsUsage is ipnetns.c's usage().
const netnsUsage = `Usage:	ip netns list
	ip netns add NAME
	ip netns attach NAME PID
	ip netns set NAME NETNSID
	ip [-all] netns delete [NAME]
	ip netns identify [PID]
	ip netns pids NAME
	ip [-all] netns exec [NAME] cmd ...
	ip netns monitor
	ip netns list-id [target-nsid POSITIVE-INT] [nsid POSITIVE-INT]
NETNSID := auto | POSITIVE-INT
`

const noProcesses = "netsim models no processes"

// netnsObject is do_netns's table, in its order of comparison. netsim's
// /run/netns always exists (as on a system where ip netns ran before).
var netnsObject = object{
	name:  "netns",
	short: "netns",
	usage: netnsUsage,
	empty: (*IP).netnsList,
	check: netnsCheckName,
	commands: []command{
		{names: []string{"list*", "show*", "lst*"}, run: (*IP).netnsList},
		{names: []string{"list-id*"}, run: (*IP).netnsListID, keywords: keywordNames(netnsListIDKeywords)},
		{names: []string{"add*"}, run: (*IP).netnsAdd},
		{names: []string{"set*"}, run: (*IP).netnsSet},
		{names: []string{"delete*"}, run: (*IP).netnsDel},
		{names: []string{"identify*"}, run: (*IP).netnsIdentify},
		{names: []string{"pids*"}, run: (*IP).netnsPids},
		{names: []string{"exec*"}, run: func(ip *IP, _ *handle, argv []string) error { return ip.netnsExec(argv) }},
		{names: []string{"monitor*"}, refused: "netsim keeps no namespace files to watch"},
		{names: []string{"attach*"}, refused: noProcesses},
	},
}

// netnsCheckName is do_netns's first check: without -all, the word after
// the command is a name, whatever the command (invalid_name).
func netnsCheckName(ip *IP, argv []string) error {
	if !ip.all && len(argv) > 1 && !rtnl.ValidNetnsName(argv[1]) {
		return &argError{msg: "Invalid netns name \"" + argv[1] + "\"\n", status: exitArg}
	}
	return nil
}

// netnsExec is `ip netns exec NAME CMD...` for the two commands a
// simulated namespace can run: ip itself, and sysctl to set the sysctls
// rtnl.Handle.Sysctl models. It fails, as a command of a batch, when the
// command exits with a non-zero status.
func (ip *IP) netnsExec(argv []string) error {
	switch {
	case len(argv) < 1 && !ip.all:
		return failf("No netns name specified\n")
	case len(argv) < 2 && !ip.all || len(argv) < 1:
		return failf("No command specified\n")
	case ip.all:
		return ip.netnsForeach(func(name string) bool {
			// on_netns_exec: the command's failure stops nothing.
			ip.printf("\nnetns: %s\n", name)
			if err := ip.netnsExecIn(name, argv[0], argv[1:]); err != nil {
				if ferr := ip.out.Flush(); ferr != nil {
					return true
				}
				ip.fail(err)
			}
			return false
		})
	}
	return ip.netnsExecIn(argv[0], argv[1], argv[2:])
}

// netnsForeach is netns_foreach: fn for each name under /run/netns (the
// newest first, as a tmpfs lists them) until it returns true; ip's
// status is 0 whatever fn did.
func (ip *IP) netnsForeach(fn func(name string) (stop bool)) error {
	for _, name := range ip.k.NetNamesNewestFirst() {
		if fn(name) {
			break
		}
	}
	return nil
}

// netnsExecIn runs prog with args in the namespace named name.
func (ip *IP) netnsExecIn(name, prog string, args []string) error {
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
		// The child is another process: this one's state is as it was
		// after it.
		parent, out, after, inBatch := ip.process, ip.out, ip.AfterCommand, ip.inBatch
		ip.AfterCommand = nil
		// The child is a new ip with a socket of its own, which asks for
		// strict dumps unless it runs a batch itself, whatever this one's
		// socket does.
		ip.inBatch = false
		st := ip.Main(append([]string{"-n", name}, args...))
		ip.process, ip.out, ip.AfterCommand, ip.inBatch = parent, out, after, inBatch
		ip.out.Reset(ip.Stdout)
		if st != 0 {
			return &cmdError{status: st}
		}
		return nil
	case "sysctl", "/sbin/sysctl":
		h := &handle{Handle: n.Handle(ip.t), ll: &llMap{}}
		defer h.Close()
		return ip.sysctl(h, args)
	}
	return failf("exec of \"%s\" failed: netsim runs only ip and sysctl in a namespace\n", prog)
}

// sysctl is `sysctl [-w] [-q] KEY=VALUE...` on the namespace's sysctls.
func (ip *IP) sysctl(h *handle, args []string) error {
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

// netnsList is netns_list: the names in /run/netns (its arguments are
// ignored), the newest first as a tmpfs lists them, each with the id ip's
// namespace has for it.
func (ip *IP) netnsList(h *handle, _ []string) error {
	ip.nsidMapInit(h)
	p := &ip.p
	p.startJSON(ip.opts.json, ip.opts.pretty, true)
	for _, n := range ip.k.NetNamesNewestFirst() {
		p.openObject("")
		p.str(printAny, "name", "%s", n)
		if id := netnsidFromName(h, n); id >= 0 {
			p.int(printAny, "id", " (id: %d)", int64(id))
		}
		p.str(printFP, "", "\n", "")
		p.closeObject()
	}
	p.endJSON(true)
	return nil
}

// netnsAdd is netns_add: a new namespace, its file under /run/netns.
func (ip *IP) netnsAdd(_ *handle, argv []string) error {
	if len(argv) < 1 {
		return failf("No netns name specified\n")
	}
	name := argv[0]
	if _, err := ip.k.NewNet(ip.t, name); err != nil {
		if errors.Is(err, syscall.EEXIST) {
			return failf("Cannot create namespace file \"/run/netns/%s\": File exists\n", name)
		}
		return err
	}
	return nil
}

// netnsDel is netns_delete: the namespace's file goes (more names are
// ignored).
func (ip *IP) netnsDel(_ *handle, argv []string) error {
	switch {
	case ip.all:
		return ip.netnsForeach(func(name string) bool {
			if err := ip.netnsDelOne(name); err != nil {
				ip.fail(err)
				return true
			}
			return false
		})
	case len(argv) < 1:
		return failf("No netns name specified\n")
	}
	return ip.netnsDelOne(argv[0])
}

// netnsDelOne is on_netns_del: the namespace's file goes.
func (ip *IP) netnsDelOne(name string) error {
	if err := ip.k.DelNet(ip.t, name); err != nil {
		if errors.Is(err, syscall.ENOENT) {
			return failf("Cannot remove namespace file \"/run/netns/%s\": No such file or directory\n", name)
		}
		return err
	}
	return nil
}

// isPid is ipnetns.c's is_pid: only digits.
func isPid(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// netnsIdentify is netns_identify: the name of ip's own namespace (its
// -netns), "" for the initial one; netsim has no other processes.
func (ip *IP) netnsIdentify(_ *handle, argv []string) error {
	switch {
	case len(argv) > 1:
		return failf("extra arguments specified\n")
	case len(argv) == 1 && !isPid(argv[0]):
		return failf("Specified string '%s' is not a pid\n", argv[0])
	case len(argv) == 1:
		return failf("ip netns identify PID is not supported by netsim: %s.\n", noProcesses)
	}
	ip.printf("%s\n", ip.netns)
	return nil
}

// netnsPids is netns_pids: the processes in the namespace, of which
// netsim has none (ip itself runs in its -netns, which netsim does not
// list).
func (ip *IP) netnsPids(_ *handle, argv []string) error {
	switch {
	case len(argv) < 1:
		return failf("No netns name specified\n")
	case len(argv) > 1:
		return failf("extra arguments specified\n")
	case ip.k.Net(argv[0]) == nil || argv[0] == "":
		return failf("Cannot open network namespace: No such file or directory\n")
	case argv[0] == ip.netns:
		return failf("ip netns pids of ip's own namespace is not supported by netsim: %s.\n", noProcesses)
	}
	return nil
}
