// Sysctls: the namespace's net.ipv4 and net.ipv6 settings netsim models.
// Kernel: devinet_sysctl_forward (net/ipv4/devinet.c), addrconf_sysctl_*
// (net/ipv6/addrconf.c), proc_fib_multipath_hash_* (net/ipv4/sysctl_net_ipv4.c).

package rtnl

import (
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/sim"
)

// Sysctl sets a namespace sysctl, e.g. "net.ipv6.conf.all.keep_addr_on_down"
// to "1". Supported: net.ipv6.conf.{all,default,DEV}.{forwarding,
// keep_addr_on_down} and net.ipv6.conf.{all,default}.{disable_ipv6,accept_dad,
// dad_transmits},
// net.ipv4.conf.{all,default}.{promote_secondaries,forwarding},
// net.ipv4.conf.DEV.forwarding, net.ipv4.ip_forward (all.forwarding),
// net.ipv4.fib_multipath_hash_seed (0: a random seed of the simulation's
// seeded randomness, as a new namespace has) and
// net.ipv4.fib_multipath_hash_policy (only 0, layer 3, is modelled), and
// the neighbour tables' net.ipv{4,6}.neigh.default.* (sysctlNeigh; in the
// initial namespace only, as the kernel has them: the tables are shared).
func (h *Handle) Sysctl(key, value string) error {
	if key == "net.ipv4.ip_forward" || key == "net/ipv4/ip_forward" {
		key = "net.ipv4.conf.all.forwarding"
	}
	parts := sysctlPath(key)
	if len(parts) == 3 && parts[0] == "net" && parts[1] == "ipv4" && strings.HasPrefix(parts[2], "fib_multipath_hash_") {
		return h.sysctlMultipath(key, parts[2], value)
	}
	if len(parts) == 5 && parts[0] == "net" && parts[2] == "neigh" && (parts[1] == "ipv4" || parts[1] == "ipv6") {
		return h.sysctlNeigh(key, parts[1], parts[3], parts[4], value)
	}
	if len(parts) != 5 || parts[0] != "net" || parts[2] != "conf" || (parts[1] != "ipv4" && parts[1] != "ipv6") {
		return errno.Errorf(syscall.ENOENT, "sysctl %s is not modelled", key)
	}
	v, err := strconv.Atoi(strings.TrimSpace(value))
	if err != nil {
		return errno.Errorf(syscall.EINVAL, "sysctl %s: invalid value %q", key, value)
	}
	fam, scope, name := parts[1], parts[3], parts[4]
	return h.do("sysctl", func(t *sim.Task, tb *netdev.Table) error {
		on := v != 0
		var dev *netdev.Device // nil for all and default
		if scope != "all" && scope != "default" {
			if dev = tb.ByName(scope); dev == nil {
				return errno.Errorf(syscall.ENOENT, "sysctl %s: no device %s", key, scope)
			}
		}
		if fam == "ipv4" {
			c := &tb.IPv4All
			if scope == "default" {
				c = &tb.IPv4Default
			}
			switch {
			case name == "forwarding" && scope == "all":
				tb.SetIPv4Forwarding(nil, on)
			case name == "forwarding" && dev != nil:
				tb.SetIPv4Forwarding(dev, on)
			case name == "forwarding":
				c.Forwarding = on
			case name == "promote_secondaries" && dev == nil:
				c.PromoteSecondaries = on
			default:
				return errno.Errorf(syscall.ENOENT, "sysctl %s is not modelled", key)
			}
			return nil
		}
		c := &tb.IPv6All
		if scope == "default" {
			c = &tb.IPv6Default
		}
		switch {
		case name == "forwarding" && scope == "all":
			tb.SetIPv6Forwarding(t, nil, on)
		case name == "forwarding" && dev != nil:
			tb.SetIPv6Forwarding(t, dev, on)
		case name == "forwarding":
			c.Forwarding = on
		case name == "keep_addr_on_down" && dev != nil:
			dev.SetIPv6KeepAddrOnDown(on)
		case name == "keep_addr_on_down":
			c.KeepAddrOnDown = on
		case name == "disable_ipv6" && dev == nil:
			c.DisableIPv6 = on
		case name == "accept_dad" && dev == nil:
			c.AcceptDAD = v
		case name == "dad_transmits" && dev == nil:
			c.DADTransmits = v
		default:
			return errno.Errorf(syscall.ENOENT, "sysctl %s is not modelled", key)
		}
		return nil
	})
}

// sysctlPath splits a sysctl name into its components. A name in file
// form ("net/ipv6/conf/eth0.100/forwarding") is split at slashes; in dotted
// form ("net.ipv6.conf.eth0/100.forwarding") at dots, and a slash within a
// component stands for a dot, as sysctl(8) writes a device name that
// contains one.
// sysctlMultipath sets net.ipv4.fib_multipath_hash_seed or _policy.
//
// Kernel: proc_fib_multipath_hash_seed, proc_fib_multipath_hash_policy
// (net/ipv4/sysctl_net_ipv4.c).
func (h *Handle) sysctlMultipath(key, name, value string) error {
	v, err := strconv.ParseUint(strings.TrimSpace(value), 10, 32)
	if err != nil {
		return errno.Errorf(syscall.EINVAL, "sysctl %s: invalid value %q", key, value)
	}
	switch name {
	case "fib_multipath_hash_seed":
		return h.do("sysctl", func(t *sim.Task, tb *netdev.Table) error {
			h.n.setMultipathSeed(uint32(v))
			return nil
		})
	case "fib_multipath_hash_policy":
		if v > 3 {
			return errno.Errorf(syscall.EINVAL, "sysctl %s: invalid value %q", key, value)
		}
		if v != 0 {
			return errno.Errorf(syscall.EOPNOTSUPP, "sysctl %s: only policy 0 (layer 3) is modelled", key)
		}
		return nil
	}
	return errno.Errorf(syscall.ENOENT, "sysctl %s is not modelled", key)
}

func sysctlPath(key string) []string {
	if strings.HasPrefix(key, "net/") {
		return strings.Split(key, "/")
	}
	parts := strings.Split(key, ".")
	for i, p := range parts {
		parts[i] = strings.ReplaceAll(p, "/", ".")
	}
	return parts
}

// sysctlNeigh sets a neighbour table's gc_thresh1/2/3 or gc_interval, or
// one of its default parms: base_reachable_time (seconds) and
// base_reachable_time_ms, which draw a new reachable time, retrans_time (in
// USER_HZ, hundredths of a second) and retrans_time_ms,
// delay_first_probe_time and gc_stale_time (seconds),
// interval_probe_time_ms (at least 1), and ucast_solicit, mcast_solicit,
// mcast_resolicit and app_solicit. Only the initial namespace has them: the
// tables are the machine's, and another namespace has no "default" parms.
//
// Kernel: neigh_sysctl_register, neigh_proc_base_reachable_time,
// neigh_proc_dointvec_* (net/core/neighbour.c): the table's entries are
// registered for the default parms of init_net only.
func (h *Handle) sysctlNeigh(key, fam, scope, name, value string) error {
	v, err := strconv.Atoi(strings.TrimSpace(value))
	if err != nil || v < 0 || name == "interval_probe_time_ms" && v < 1 {
		return errno.Errorf(syscall.EINVAL, "sysctl %s: invalid value %q", key, value)
	}
	tbl := h.n.k.arp
	if fam == "ipv6" {
		tbl = h.n.k.nd
	}
	sec, ms := time.Duration(v)*time.Second, time.Duration(v)*time.Millisecond
	return h.do("sysctl", func(t *sim.Task, tb *netdev.Table) error {
		if scope != "default" || h.n != h.n.k.initNet {
			return errno.Errorf(syscall.ENOENT, "sysctl %s is not modelled", key)
		}
		p := &tbl.Parms
		switch name {
		case "gc_thresh1":
			tbl.GCThresh1 = v
		case "gc_thresh2":
			tbl.GCThresh2 = v
		case "gc_thresh3":
			tbl.GCThresh3 = v
		case "gc_interval":
			tbl.GCInterval = sec
		case "base_reachable_time":
			tbl.SetBaseReachableTime(sec)
		case "base_reachable_time_ms":
			tbl.SetBaseReachableTime(ms)
		case "retrans_time":
			p.RetransTime = time.Duration(v) * 10 * time.Millisecond
		case "retrans_time_ms":
			p.RetransTime = ms
		case "delay_first_probe_time":
			p.DelayProbeTime = sec
		case "gc_stale_time":
			p.GCStaleTime = sec
		case "interval_probe_time_ms":
			p.IntervalProbeTime = ms
		case "ucast_solicit":
			p.UcastProbes = v
		case "mcast_solicit":
			p.McastProbes = v
		case "mcast_resolicit":
			p.McastReprobes = v
		case "app_solicit":
			p.AppProbes = v
		default:
			return errno.Errorf(syscall.ENOENT, "sysctl %s is not modelled", key)
		}
		tbl.Retime(t)
		return nil
	})
}
