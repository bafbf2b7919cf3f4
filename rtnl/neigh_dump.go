// Neighbour lookups and dumps: RTM_GETNEIGH as a doit (neigh_get,
// neigh_valid_get_req) and with NLM_F_DUMP (neigh_dump_info,
// neigh_valid_dump_req, neigh_dump_table, pneigh_dump_table) in
// net/core/neighbour.c.

package rtnl

import (
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/neigh"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// NeighGetRequest is the body of an RTM_GETNEIGH without NLM_F_DUMP: an
// ndmsg naming the entry (family, device, NTF_PROXY) and its NDA_DST, and
// what the kernel's checks of such a request see. The kernel checks it
// strictly whatever the socket says.
type NeighGetRequest struct {
	Origin
	Family rt.Family
	Index  netdev.IfIndex
	Proxy  bool // ndm_flags is NTF_PROXY
	Dst    []byte
	// ShortHeader: the message is shorter than an ndmsg. HeaderSet: the
	// header's pads, state or type are set. BadFlags: ndm_flags has a
	// flag but NTF_PROXY. Unsupported: an attribute but NDA_DST.
	ShortHeader, HeaderSet, BadFlags, Unsupported bool
}

// GetNeigh returns the entry req names, after neigh_valid_get_req's
// checks.
//
// Kernel: neigh_get, neigh_valid_get_req (net/core/neighbour.c).
func (h *Handle) GetNeigh(req NeighGetRequest) (NeighInfo, error) {
	var out NeighInfo
	err := h.doFrom(req.Origin, "RTM_GETNEIGH", func(t *sim.Task, tb *netdev.Table) error {
		k := h.n.k
		switch {
		case req.ShortHeader:
			return errno.New(syscall.EINVAL, "Invalid header for neighbor get request")
		case req.HeaderSet:
			return errno.New(syscall.EINVAL, "Invalid values in header for neighbor get request")
		case req.BadFlags:
			return errno.New(syscall.EINVAL, "Invalid flags in header for neighbor get request")
		case !req.Proxy && req.Index == 0:
			return errno.New(syscall.EINVAL, "No device specified")
		case req.Unsupported:
			return errno.New(syscall.EINVAL, "Unsupported attribute in neighbor get request")
		}
		tbl := k.neighTable(req.Family)
		if tbl == nil {
			return errno.New(syscall.EAFNOSUPPORT, "Unsupported family in header for neighbor get request")
		}
		if req.Dst != nil && len(req.Dst) != tbl.KeyLen() {
			return errno.New(syscall.EINVAL, "Invalid network address in neighbor get request")
		}
		if req.Dst == nil {
			return errno.New(syscall.EINVAL, "Network address not specified")
		}
		var dev *netdev.Device
		if req.Index != 0 {
			if dev = tb.ByIndex(req.Index); dev == nil {
				return errno.New(syscall.ENODEV, "Unknown device ifindex")
			}
		}
		_, dst, err := k.neighDst(req.Family, req.Dst)
		if err != nil {
			return err
		}
		if req.Proxy {
			p := tbl.ProxyLookup(t, tb, dst, dev)
			if p == nil {
				return errno.New(syscall.ENOENT, "Proxy neighbour entry not found")
			}
			out = proxyInfo(p, tbl.Family())
			return nil
		}
		e := tbl.Lookup(t, dst, dev)
		if e == nil {
			return errno.New(syscall.ENOENT, "Neighbour entry not found")
		}
		out = neighInfo(e, tbl.Family(), t.Now())
		out.Cache.Refcnt++ // neigh_get fills the reply holding its lookup's reference
		return nil
	})
	return out, err
}

// NeighDumpRequest is the body of an RTM_GETNEIGH with NLM_F_DUMP: the
// family (rt.FamilyUnspec: both tables, IPv4 first), whether it asks for
// the proxy entries (ndm_flags is exactly NTF_PROXY), its filters
// (NDA_IFINDEX, NDA_MASTER) and what a strictly checked request must not
// carry.
type NeighDumpRequest struct {
	Origin
	Family rt.Family
	Proxy  bool
	// Index keeps the entries of that device (NDA_IFINDEX); 0 keeps all.
	Index netdev.IfIndex
	// Master keeps the entries of the ports of that master (NDA_MASTER);
	// -1 those of devices without a master; 0 keeps all.
	Master int32
	// Strict is NETLINK_GET_STRICT_CHK on the requesting socket; then
	// ShortHeader (shorter than an ndmsg), HeaderSet (pads, ifindex,
	// state or type set), BadFlags (a flag but NTF_PROXY) and
	// Unsupported (an attribute but NDA_IFINDEX and NDA_MASTER) are
	// refused.
	Strict, ShortHeader, HeaderSet, BadFlags, Unsupported bool
}

// Filtered reports whether the dump's replies carry NLM_F_DUMP_FILTERED.
func (r NeighDumpRequest) Filtered() bool { return r.Index != 0 || r.Master != 0 }

// NeighDump is a neighbour dump in progress: the tables still to dump and
// the position in the first (the creation order of the last entry given,
// or the proxy entries' index), as the kernel resumes (cb->args). A
// NeighDump is used by its Handle's goroutine.
type NeighDump struct {
	h      *Handle
	req    NeighDumpRequest
	tables []*neigh.Table
	cursor uint64
	ppos   int
}

// DumpNeighs starts the dump req asks for, after the strict checks when
// asked for. Nothing is walked until Next.
//
// Kernel: neigh_dump_info, neigh_valid_dump_req (net/core/neighbour.c).
func (h *Handle) DumpNeighs(req NeighDumpRequest) (*NeighDump, error) {
	if req.Strict {
		switch {
		case req.ShortHeader:
			return nil, errno.New(syscall.EINVAL, "Invalid header for neighbor dump request")
		case req.HeaderSet:
			return nil, errno.New(syscall.EINVAL, "Invalid values in header for neighbor dump request")
		case req.BadFlags:
			return nil, errno.New(syscall.EINVAL, "Invalid flags in header for neighbor dump request")
		case req.Unsupported:
			return nil, errno.New(syscall.EINVAL, "Unsupported attribute in neighbor dump request")
		}
	}
	if err := h.usable(); err != nil {
		return nil, err
	}
	d := &NeighDump{h: h, req: req}
	for _, tbl := range []*neigh.Table{h.n.k.arp, h.n.k.nd} {
		if req.Family == rt.FamilyUnspec || tbl.Family() == req.Family {
			d.tables = append(d.tables, tbl)
		}
	}
	return d, nil
}

// filtered is neigh_ifindex_filtered and neigh_master_filtered.
func (d *NeighDump) filtered(dev *netdev.Device) bool {
	if i := d.req.Index; i != 0 && (dev == nil || dev.Index() != i) {
		return true
	}
	switch m := d.req.Master; {
	case m == 0:
		return false
	case m == -1:
		return dev != nil && dev.Master() != nil
	default:
		return dev == nil || dev.Master() == nil || int32(dev.Master().Index()) != m
	}
}

// Next is one part of the dump, one pass of the dumpit: table after
// table, it calls fn for the namespace's entries that pass the filters,
// from where the last part stopped, until fn returns false, and reports
// whether the dump is done. Each part walks every entry of every
// namespace from its position, as the kernel's walks the whole hash
// table.
//
// Kernel: neigh_dump_table, pneigh_dump_table (net/core/neighbour.c).
func (d *NeighDump) Next(fn func(*NeighInfo) bool) (done bool, err error) {
	err = d.h.doFrom(d.req.Origin, "RTM_GETNEIGH", func(t *sim.Task, tb *netdev.Table) error {
		for len(d.tables) > 0 {
			if !d.nextTable(t, tb, fn) {
				return nil
			}
			d.tables, d.cursor, d.ppos = d.tables[1:], 0, 0
		}
		done = true
		return nil
	})
	return done && err == nil, err
}

func (d *NeighDump) nextTable(t *sim.Task, tb *netdev.Table, fn func(*NeighInfo) bool) bool {
	tbl := d.tables[0]
	stopped := false
	if d.req.Proxy {
		d.ppos = tbl.ProxyWalk(t, d.ppos, func(p *neigh.Proxy) bool {
			if p.Net != tb || d.filtered(p.Dev) {
				return true
			}
			ni := proxyInfo(p, tbl.Family())
			if !fn(&ni) {
				stopped = true
				return false
			}
			return true
		})
		return !stopped
	}
	now := t.Now()
	d.cursor = tbl.Walk(t, d.cursor, func(e *neigh.Entry) bool {
		if e.Dev.Table() != tb || d.filtered(e.Dev) {
			return true
		}
		ni := neighInfo(e, tbl.Family(), now)
		if !fn(&ni) {
			stopped = true
			return false
		}
		return true
	})
	return !stopped
}

// Close ends the dump; a neighbour dump holds nothing between its parts.
func (d *NeighDump) Close() { d.tables = nil }
