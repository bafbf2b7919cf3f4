// `ip maddress`: iproute2's ip/ipmaddr.c, which reads /proc/net/dev_mcast,
// /proc/net/igmp and /proc/net/igmp6.

package iproute

import (
	"strconv"
	"strings"
	"syscall"

	"github.com/netsimlab/netsim/rtnl"
)

const maddrUsage = `Usage: ip maddr [ add | del ] MULTIADDR dev STRING
       ip maddr show [ dev STRING ]
`

func (ip *IP) doMaddr(h *rtnl.Handle, argv []string) error {
	if len(argv) == 0 {
		return ip.maddrShow(h, nil)
	}
	cmd, rest := argv[0], argv[1:]
	switch {
	case matches(cmd, "list"), matches(cmd, "show"), matches(cmd, "lst"):
		return ip.maddrShow(h, rest)
	case matches(cmd, "add"), matches(cmd, "delete"):
		return failf("ip maddr add/del is not supported by netsim.\n")
	case matches(cmd, "help"):
		return usageErr(maddrUsage)
	}
	return unknownCmd(cmd, "maddr")
}

func (ip *IP) maddrShow(h *rtnl.Handle, argv []string) error {
	dev := ""
	a := &args{w: argv}
	for ; a.more(); a.skip() {
		w := a.peek()
		if w == "dev" {
			v, err := a.next()
			if err != nil {
				return err
			}
			w = v
		} else if matches(w, "help") {
			return usageErr(maddrUsage)
		}
		if dev != "" {
			return duparg2("dev", w)
		}
		dev = w
	}
	if dev != "" && h.LinkIndex(dev) == 0 {
		return failf("Device \"%s\" does not exist.\n", dev)
	}
	list, err := h.MaddrList()
	if err != nil {
		return err
	}
	for _, m := range list {
		if dev != "" && m.Name != dev {
			continue
		}
		var b strings.Builder
		if ip.family == 0 {
			for _, e := range m.Link {
				b.WriteString("\tlink  " + macString(e.Addr))
				if e.Refcount > 1 {
					b.WriteString(" users " + strconv.Itoa(e.Refcount))
				}
				b.WriteString("\n")
			}
		}
		if ip.family != syscall.AF_INET6 {
			for _, g := range m.Inet4 {
				b.WriteString("\tinet  " + g.Addr.String())
				if g.Users > 1 {
					b.WriteString(" users " + strconv.Itoa(g.Users))
				}
				b.WriteString("\n")
			}
		}
		if ip.family != syscall.AF_INET {
			for _, g := range m.Inet6 {
				b.WriteString("\tinet6 " + g.Addr.String())
				if g.Users > 1 {
					b.WriteString(" users " + strconv.Itoa(g.Users))
				}
				b.WriteString("\n")
			}
		}
		if b.Len() == 0 {
			continue
		}
		ip.printf("%d:\t%s\n%s", m.Index, m.Name, b.String())
	}
	return nil
}
