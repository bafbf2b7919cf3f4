// `ip netns`: iproute2's ip/ipnetns.c for add, del and list. A simulated
// namespace has a name but no file: the messages name the file ip would
// have created under /run/netns.

package iproute

import (
	"errors"
	"slices"
	"syscall"

	"github.com/netsimlab/netsim/rtnl"
)

const netnsUsage = `Usage:	ip netns list
	ip netns add NAME
	ip netns delete NAME
`

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
