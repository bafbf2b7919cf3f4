package rtnl

import (
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/sim"
)

// NexthopNew adds or replaces a nexthop object as RTM_NEWNEXTHOP does
// with the request's own flags, in one request: without replace
// (NLM_F_REPLACE) it is NexthopAdd, whether create (NLM_F_CREATE) is set
// or not; with replace it is NexthopReplace, except that without create a
// nexthop id that does not exist is refused with ENOENT ("Replace
// specified without create and no entry exists"), after every check of the
// new nexthop's definition. A replace without an id is refused first
// (EINVAL, "Replace requires nexthop id").
//
// Kernel: rtm_new_nexthop, nexthop_add, insert_nexthop (net/ipv4/nexthop.c).
func (h *Handle) NexthopNew(spec Nexthop, replace, create bool) error {
	return h.do("RTM_NEWNEXTHOP", func(t *sim.Task, _ *netdev.Table) error {
		if replace && spec.ID == 0 {
			return errno.New(syscall.EINVAL, "Replace requires nexthop id")
		}
		cfg, err := h.n.nexthopConfig(spec)
		if err != nil {
			return err
		}
		nh, err := h.n.nh.Insert(t, cfg, replace, create, h.n.fib)
		if err == nil && h.n.notifyNeeded() {
			var op uint16
			if replace {
				op |= nlmReplace
			}
			if create {
				op |= nlmCreate
			}
			h.n.nexthopNotify(nh, false, h.n.nexthopFlags(op))
		}
		return err
	})
}
