// `ip neigh add/change/replace/del` and `ip neigh get`: iproute2's
// ip/ipneigh.c (ipneigh_modify, ipneigh_get), each one RTM_NEWNEIGH,
// RTM_DELNEIGH or RTM_GETNEIGH.

package iproute

import (
	"net/netip"

	"github.com/netsimlab/netsim/neigh"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// neighReq is what ipneigh_modify and ipneigh_get gather.
type neighReq struct {
	family rt.Family
	state  neigh.State
	ntf    neigh.Flags
	proto  uint8
	dev    string
	devOK  bool
	dst    netip.Addr
	dstOK  bool
	lla    string
	llaOK  bool
}

// nextDst reads the entry's address (get_addr), once.
func (q *neighReq) nextDst(a *args, dupKey string, dup func(key, arg string) error) error {
	v := a.peek()
	if q.dstOK {
		return dup(dupKey, v)
	}
	d, err := getAddr(v, q.family)
	if err != nil {
		return err
	}
	q.dst, q.dstOK = d, true
	return nil
}

// neighProxy is the `proxy ADDR` keyword of ipneigh_modify and ipneigh_get.
func neighProxy(a *args, q *neighReq) error {
	if _, err := a.next(); err != nil {
		return err
	}
	if matches(a.peek(), "help") {
		return usageErr(neighUsage)
	}
	if err := q.nextDst(a, "address", duparg); err != nil {
		return err
	}
	q.devOK = true
	q.ntf |= neigh.FlagProxy
	return nil
}

func neighDev(a *args, q *neighReq) error {
	v, err := a.next()
	q.dev, q.devOK = v, true
	return err
}

// neighModifyKeywords are ipneigh_modify's keywords in its order of
// comparison; any other word is [to] ADDR (neighModifyDst).
var neighModifyKeywords = []keyword[*neighReq]{
	kw("lladdr", func(a *args, q *neighReq) error {
		v, err := a.next()
		if err != nil {
			return err
		}
		if q.llaOK {
			return duparg("lladdr", v)
		}
		q.lla, q.llaOK = v, true
		return nil
	}),
	exact("nud", func(a *args, q *neighReq) error {
		v, err := a.next()
		if err != nil {
			return err
		}
		st, ok := nudState(v)
		if !ok {
			return invarg("nud state is bad", v)
		}
		q.state = neigh.State(st)
		return nil
	}),
	kw("proxy", neighProxy),
	exact("router", func(_ *args, q *neighReq) error { q.ntf |= neigh.FlagRouter; return nil }),
	exact("use", func(_ *args, q *neighReq) error { q.ntf |= neigh.FlagUse; return nil }),
	exact("managed", func(_ *args, q *neighReq) error {
		q.ntf |= neigh.FlagManaged
		q.state = neigh.StateNone
		return nil
	}),
	kw("extern_learn", func(_ *args, q *neighReq) error { q.ntf |= neigh.FlagExtLearned; return nil }),
	exact("dev", neighDev),
	kw("protocol", func(a *args, q *neighReq) error {
		v, err := a.next()
		if err != nil {
			return err
		}
		p, ok := protoID(v)
		if !ok {
			return invarg("\"protocol\" value is invalid\n", v)
		}
		q.proto = p
		return nil
	}),
}

// neighModifyDst is ipneigh_modify's last branch: [to] ADDR, a "help"
// before it skipped.
func neighModifyDst(a *args, q *neighReq) error {
	if a.peek() == "to" {
		if _, err := a.next(); err != nil {
			return err
		}
	}
	if matches(a.peek(), "help") {
		if _, err := a.next(); err != nil {
			return err
		}
	}
	return q.nextDst(a, "to", duparg2)
}

func (ip *IP) neighAdd(h *handle, argv []string) error {
	return ip.neighModify(h, argv, rt.NLMCreate|rt.NLMExcl, false)
}

func (ip *IP) neighChange(h *handle, argv []string) error {
	return ip.neighModify(h, argv, rt.NLMReplace, false)
}

func (ip *IP) neighReplace(h *handle, argv []string) error {
	return ip.neighModify(h, argv, rt.NLMCreate|rt.NLMReplace, false)
}

func (ip *IP) neighDel(h *handle, argv []string) error { return ip.neighModify(h, argv, 0, true) }

// neighModify is ipneigh_modify: RTM_NEWNEIGH with flags, or RTM_DELNEIGH.
// Its state is NUD_PERMANENT unless said. A request the kernel refuses
// ends ip.
func (ip *IP) neighModify(h *handle, argv []string, flags rt.NLMFlags, del bool) error {
	q := &neighReq{family: ip.family, state: neigh.StatePermanent}
	if err := walk(&args{w: argv}, neighModifyKeywords, q, neighModifyDst); err != nil {
		return err
	}
	if !q.devOK || !q.dstOK {
		return &argError{msg: "Device and destination are required arguments.\n", status: exitArg}
	}
	req := rtnl.NeighRequest{Flags: flags, Family: addrFamily(q.dst), State: q.state, NTF: q.ntf, Dst: q.dst.AsSlice(), Protocol: q.proto}
	if q.llaOK && q.lla != "null" {
		ll, msg := llAddrA2N(q.lla, 20)
		if msg != "" {
			return failf("%s", msg)
		}
		req.LLAddr = ll
	}
	if err := h.initMap(); err != nil {
		return err
	}
	if q.dev != "" {
		if req.Index = h.LinkIndex(q.dev); req.Index == 0 {
			return nodev(q.dev)
		}
	}
	var err error
	if del {
		err = h.DelNeigh(req)
	} else {
		err = h.NewNeigh(req)
	}
	if err != nil {
		// rtnl_talk failing: ipneigh_modify calls exit(2), which ends a
		// batch too, -force or not.
		return &argError{msg: Message(err), status: exitNetlink}
	}
	return nil
}

// neighGetKeywords are ipneigh_get's keywords; any other word is [to]
// ADDR (neighGetDst).
var neighGetKeywords = []keyword[*neighReq]{
	exact("dev", neighDev),
	kw("proxy", neighProxy),
}

// neighGetDst is ipneigh_get's last branch: [to] ADDR, or help.
func neighGetDst(a *args, q *neighReq) error {
	if a.peek() == "to" {
		if _, err := a.next(); err != nil {
			return err
		}
	}
	if matches(a.peek(), "help") {
		return usageErr(neighUsage)
	}
	return q.nextDst(a, "to", duparg2)
}

// neighGet is ipneigh_get: one RTM_GETNEIGH, its answer printed by
// print_neigh with no filter (and outside any JSON context: ip opens
// none, so -j prints text).
func (ip *IP) neighGet(h *handle, argv []string) error {
	q := &neighReq{family: ip.family}
	if err := walk(&args{w: argv}, neighGetKeywords, q, neighGetDst); err != nil {
		return err
	}
	if !q.devOK || !q.dstOK {
		return failf("Device and address are required arguments.\n")
	}
	req := rtnl.NeighGetRequest{Family: addrFamily(q.dst), Proxy: q.ntf&neigh.FlagProxy != 0, Dst: q.dst.AsSlice()}
	if q.dev != "" {
		if req.Index = h.LinkIndex(q.dev); req.Index == 0 {
			return failf("Cannot find device \"%s\"\n", q.dev)
		}
	}
	n, err := h.GetNeigh(req)
	if err != nil {
		return err
	}
	ip.printNeigh(&n, false)
	return nil
}
