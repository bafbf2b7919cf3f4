package nlwire_test

import (
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jsimonetti/rtnetlink/v2"
	"github.com/mdlayher/netlink"
	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/fibrules"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/nlwire"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
)

// The stress test's knobs. Without -stress.duration each worker makes a
// fixed number of requests, a few seconds under -race; by hand:
//
//	go test -race -run '^TestStress$' ./nlwire -stress.duration=60s -stress.workers=32
var (
	stressDuration = flag.Duration("stress.duration", 0, "TestStress: run each configuration this long (0: a short run of a fixed number of requests)")
	stressWorkers  = flag.Int("stress.workers", 4, "TestStress: concurrent workers")
	stressSeed     = flag.Uint64("stress.seed", 1, "TestStress: the workers' random seed")
)

// stressShortOps is the number of requests each worker makes in the short run.
const stressShortOps = 1500

// stressNames are the namespace names the workers create, use and delete
// (besides the initial namespace).
var stressNames = []string{"s0", "s1", "s2"}

// TestStress: workers, each a goroutine with its own task, its own Handle
// and its own netlink socket, make seeded random link, address, route,
// nexthop and rule requests and dumps, through both front ends, while
// they also create and delete the namespaces they work in and move
// between them. Under -race it checks that concurrent use is free of data
// races (rule requests run without RTNL under LockPerOps); every request
// succeeds or fails with a kernel error, never with a panic, a non-errno
// error or EBADF; a namespace deleted by name stays usable for the worker
// that holds it; and at the end, with everything closed and settled,
// every namespace deleted has been dismantled and the kernel's invariants
// hold.
func TestStress(t *testing.T) {
	for _, cfg := range []rtnl.Config{rtnl.After, rtnl.Before} {
		t.Run(cfg.String(), func(t *testing.T) { runStress(t, cfg) })
	}
}

func runStress(t *testing.T, cfg rtnl.Config) {
	k := rtnl.MustNewKernel(cfg)
	var deadline time.Time
	if *stressDuration > 0 {
		deadline = time.Now().Add(*stressDuration)
	}
	reg := &stressRegistry{}
	workers := make([]*stressWorker, *stressWorkers)
	var wg sync.WaitGroup
	for i := range workers {
		w := &stressWorker{
			id: i, k: k, t: k.World().NewTask(fmt.Sprintf("stress%d", i)),
			rng: rand.New(rand.NewPCG(*stressSeed, uint64(i))), reg: reg,
			errnos: map[syscall.Errno]int{},
		}
		workers[i] = w
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.err = w.run(deadline)
		}()
	}
	wg.Wait()
	ops, errs := 0, map[syscall.Errno]int{}
	for _, w := range workers {
		require.NoError(t, w.err, "worker %d (seed %d)", w.id, *stressSeed)
		ops += w.ops
		for e, n := range w.errnos {
			errs[e] += n
		}
	}

	// Everything is closed: delete what is left, let the cleanups run.
	end := k.World().NewTask("end")
	for _, name := range k.NetNames() {
		require.NoError(t, k.DelNet(end, name))
	}
	k.Settle(end)
	require.NoError(t, k.CheckInvariants())
	for _, n := range reg.nets {
		require.Zero(t, n.Devices().Len(), "%v dismantled once its last Handle and socket closed", n)
	}
	t.Logf("%d workers, %d requests, %d namespaces created; errors by errno: %v", len(workers), ops, len(reg.nets), errnoCounts(errs))
}

// stressRegistry records the namespaces the workers created.
type stressRegistry struct {
	mu   sync.Mutex
	nets []*rtnl.Net // +checklocks:mu
}

type stressWorker struct {
	id  int
	k   *rtnl.Kernel
	t   *sim.Task
	rng *rand.Rand
	reg *stressRegistry

	n *rtnl.Net
	h *rtnl.Handle
	c *netlink.Conn
	// held: a request in n succeeded, so h and c hold n; n must never be
	// reported deleted to them.
	held bool

	ops    int
	errnos map[syscall.Errno]int
	err    error
}

func (w *stressWorker) run(deadline time.Time) error {
	w.enter(w.k.InitNet())
	defer w.leave()
	for i := 0; ; i++ {
		if deadline.IsZero() && i >= stressShortOps || !deadline.IsZero() && time.Now().After(deadline) {
			return nil
		}
		if err := w.step(); err != nil {
			return fmt.Errorf("request %d in %v: %w", i, w.n, err)
		}
		w.ops++
	}
}

// enter opens the worker's Handle and socket in n.
func (w *stressWorker) enter(n *rtnl.Net) {
	w.n, w.h, w.held = n, n.Handle(w.t), n == w.k.InitNet()
	s := nlwire.NewSocketTask(n, w.t)
	w.c = netlink.NewConn(s, s.PID())
	_ = w.c.SetOption(netlink.ExtendedAcknowledge, true)
}

// leave closes them, dropping the worker's references to its namespace.
func (w *stressWorker) leave() {
	_ = w.c.Close()
	_ = w.h.Close()
}

// dev is one of the worker's own device names.
func (w *stressWorker) dev() string { return fmt.Sprintf("w%dd%d", w.id, w.rng.IntN(3)) }

// step makes one random request and checks its outcome.
func (w *stressWorker) step() error {
	r := w.rng
	wire := r.IntN(2) == 0
	switch p := r.IntN(100); {
	case p < 3: // namespace churn
		name := stressNames[r.IntN(len(stressNames))]
		if w.k.Net(name) == nil {
			n, err := w.k.NewNet(w.t, name)
			if err == nil {
				w.reg.mu.Lock()
				w.reg.nets = append(w.reg.nets, n)
				w.reg.mu.Unlock()
			}
			return w.churnErr(err)
		}
		return w.churnErr(w.k.DelNet(w.t, name))
	case p < 7: // move to another namespace (or the initial one)
		n := w.k.InitNet()
		if i := r.IntN(len(stressNames) + 1); i < len(stressNames) {
			if x := w.k.Net(stressNames[i]); x != nil {
				n = x
			}
		}
		w.leave()
		w.enter(n)
		return nil
	case p < 17:
		return w.link(wire)
	case p < 32:
		return w.addr(wire)
	case p < 50:
		return w.route(wire)
	case p < 62:
		return w.nexthop(wire)
	case p < 80:
		return w.rule(wire)
	default:
		return w.dump(wire)
	}
}

func (w *stressWorker) link(wire bool) error {
	name := w.dev()
	switch w.rng.IntN(4) {
	case 0:
		if wire {
			return w.wireLink(uapi.RTM_NEWLINK, netlink.Create|netlink.Excl, &rtnetlink.LinkMessage{
				Attributes: &rtnetlink.LinkAttributes{Name: name, Info: &rtnetlink.LinkInfo{Kind: "dummy"}}})
		}
		return w.handleErr(w.h.LinkAdd(netdev.Dummy{Name: name}))
	case 1:
		return w.handleErr(w.h.LinkAdd(netdev.Veth{Name: name, Peer: name + "p"}))
	case 2:
		if wire {
			return w.wireLink(uapi.RTM_NEWLINK, 0, &rtnetlink.LinkMessage{Flags: uapi.IFF_UP, Change: uapi.IFF_UP,
				Attributes: &rtnetlink.LinkAttributes{Name: name}})
		}
		return w.handleErr(w.h.LinkSetUp(name))
	default:
		if wire {
			return w.wireLink(uapi.RTM_DELLINK, 0, &rtnetlink.LinkMessage{Attributes: &rtnetlink.LinkAttributes{Name: name}})
		}
		return w.handleErr(w.h.LinkDel(name))
	}
}

// index returns the ifindex of the worker's device name, 0 if none.
func (w *stressWorker) index(name string) (uint32, error) {
	li, err := w.h.LinkByName(name)
	if err != nil {
		return 0, w.handleErr(err)
	}
	w.held = true
	return uint32(li.Index), nil
}

func (w *stressWorker) addr(wire bool) error {
	name := w.dev()
	j := byte(w.rng.IntN(4))
	p := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(w.id), j, 1}), 24)
	if w.rng.IntN(2) == 0 {
		p = netip.PrefixFrom(netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, byte(w.id), j, 15: 1}), 64)
	}
	del := w.rng.IntN(3) == 0
	if !wire {
		if del {
			return w.handleErr(w.h.AddrDel(name, p))
		}
		return w.handleErr(w.h.AddrAdd(name, p))
	}
	idx, err := w.index(name)
	if err != nil || idx == 0 {
		return err
	}
	fam := uint8(syscall.AF_INET)
	if p.Addr().Is6() {
		fam = syscall.AF_INET6
	}
	ip := net.IP(p.Addr().AsSlice())
	am := &rtnetlink.AddressMessage{Family: fam, PrefixLength: uint8(p.Bits()), Index: idx,
		Attributes: &rtnetlink.AddressAttributes{Address: ip, Local: ip}}
	if del {
		return w.wire(uapi.RTM_DELADDR, 0, am)
	}
	return w.wire(uapi.RTM_NEWADDR, netlink.Create|netlink.Excl, am)
}

func (w *stressWorker) route(wire bool) error {
	name := w.dev()
	table := uint32(100 + w.id)
	j := byte(w.rng.IntN(8))
	dst := netip.PrefixFrom(netip.AddrFrom4([4]byte{198, 18, j, 0}), 24)
	if w.rng.IntN(2) == 0 {
		dst = netip.PrefixFrom(netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 0xff, j}), 48)
	}
	del := w.rng.IntN(3) == 0
	if !wire {
		rt := rtnl.Route{Table: table, Dst: dst, Dev: name}
		if !dst.Addr().Is6() && w.rng.IntN(3) == 0 {
			rt.Dev, rt.NexthopID = "", w.nexthopID()
		}
		if del {
			return w.handleErr(w.h.RouteDel(rt))
		}
		return w.handleErr(w.h.RouteAdd(rt))
	}
	idx, err := w.index(name)
	if err != nil || idx == 0 {
		return err
	}
	fam := uint8(syscall.AF_INET)
	if dst.Addr().Is6() {
		fam = syscall.AF_INET6
	}
	rm := &rtnetlink.RouteMessage{Family: fam, DstLength: uint8(dst.Bits()), Table: 0, Protocol: 3, Scope: 0, Type: 1,
		Attributes: rtnetlink.RouteAttributes{Dst: net.IP(dst.Addr().AsSlice()), OutIface: idx, Table: table}}
	if del {
		return w.wire(uapi.RTM_DELROUTE, 0, rm)
	}
	return w.wire(uapi.RTM_NEWROUTE, netlink.Create|netlink.Excl, rm)
}

// nexthopID is one of the worker's nexthop ids.
func (w *stressWorker) nexthopID() nexthop.ID { return nexthop.ID(1000*(w.id+1) + w.rng.IntN(4)) }

func (w *stressWorker) nexthop(wire bool) error {
	id := w.nexthopID()
	switch w.rng.IntN(4) {
	case 0: // a device nexthop
		name := w.dev()
		if !wire {
			return w.handleErr(w.h.NexthopAdd(rtnl.NexthopRequest{ID: id, Dev: name}))
		}
		idx, err := w.index(name)
		if err != nil || idx == 0 {
			return err
		}
		return w.wireNexthop(uapi.RTM_NEWNEXTHOP, id, func(ae *netlink.AttributeEncoder) { ae.Uint32(uapi.NHA_OIF, idx) })
	case 1: // a blackhole
		if !wire {
			return w.handleErr(w.h.NexthopAdd(rtnl.NexthopRequest{ID: id, Blackhole: true}))
		}
		return w.wireNexthop(uapi.RTM_NEWNEXTHOP, id, func(ae *netlink.AttributeEncoder) { ae.Flag(uapi.NHA_BLACKHOLE, true) })
	case 2: // a group of two of the worker's nexthops
		a, b := w.nexthopID(), w.nexthopID()
		if a == id || b == id || a == b {
			return nil
		}
		return w.handleErr(w.h.NexthopAdd(rtnl.NexthopRequest{ID: id, Group: []nexthop.GroupEntry{{ID: a, Weight: 1}, {ID: b, Weight: 2}}}))
	default:
		if wire {
			return w.wireNexthop(uapi.RTM_DELNEXTHOP, id, nil)
		}
		return w.handleErr(w.h.NexthopDel(id))
	}
}

func (w *stressWorker) rule(wire bool) error {
	fam := rt.FamilyInet
	if w.rng.IntN(2) == 0 {
		fam = rt.FamilyInet6
	}
	pref := uint32(1000 + 100*w.id + w.rng.IntN(10))
	r := fibrules.Rule{Pref: pref, Attrs: fibrules.AttrPriority, Action: fibrules.ActToTable, Table: uint32(100 + w.id)}
	switch w.rng.IntN(4) {
	case 0:
		r.IIF = w.dev()
	case 1:
		r.Attrs |= fibrules.AttrIIFName // FRA_IIFNAME "": bound to no device
	case 2:
		if fam == rt.FamilyInet {
			r.Table = 0 // the lowest unused table (fib_empty_table)
		}
	}
	del := w.rng.IntN(3) == 0
	if !wire {
		if del {
			return w.handleErr(w.h.RuleDel(fam, fibrules.Rule{Pref: pref, Attrs: fibrules.AttrPriority}))
		}
		return w.handleErr(w.h.RuleAdd(fam, r))
	}
	rm := &rtnetlink.RuleMessage{Family: uint8(fam), Action: uint8(r.Action), Attributes: &rtnetlink.RuleAttributes{Priority: &pref}}
	if del {
		return w.wire(uapi.RTM_DELRULE, 0, rm)
	}
	if r.Table != 0 {
		rm.Attributes.Table = &r.Table
	}
	if r.IIF != "" || r.Attrs&fibrules.AttrIIFName != 0 {
		rm.Attributes.IIFName = &r.IIF
	}
	return w.wire(uapi.RTM_NEWRULE, netlink.Create|netlink.Excl, rm)
}

func (w *stressWorker) dump(wire bool) error {
	kind := w.rng.IntN(5)
	if wire {
		// The request's zeroed header: ifinfomsg, ifaddrmsg, rtmsg,
		// fib_rule_hdr, nhmsg.
		typ := []netlink.HeaderType{uapi.RTM_GETLINK, uapi.RTM_GETADDR, uapi.RTM_GETROUTE, uapi.RTM_GETRULE, uapi.RTM_GETNEXTHOP}[kind]
		return w.wireRaw(typ, netlink.Dump, make([]byte, []int{16, 8, 12, 12, 8}[kind]))
	}
	var err error
	switch kind {
	case 0:
		_, err = w.h.LinkList()
	case 1:
		_, err = w.h.AddrList("", rt.FamilyUnspec)
	case 2:
		_, err = w.h.RouteList(rt.FamilyUnspec, 0)
	case 3:
		_, err = w.h.RuleList(rt.FamilyInet)
	default:
		_, err = w.h.NexthopList()
	}
	return w.handleErr(err)
}

// churnErr checks the outcome of NewNet or DelNet: nil or a kernel error.
func (w *stressWorker) churnErr(err error) error {
	var ee *errno.Error
	if err != nil && !errors.As(err, &ee) {
		return fmt.Errorf("not an errno.Error: %T %v", err, err)
	}
	return nil
}

// handleErr checks the outcome of a Handle request: nil, or a kernel error.
func (w *stressWorker) handleErr(err error) error {
	if err == nil {
		w.held = true
		return nil
	}
	var ee *errno.Error
	if !errors.As(err, &ee) {
		return fmt.Errorf("not an errno.Error: %T %v", err, err)
	}
	return w.kernelErr(ee.Errno, ee.Msg)
}

// kernelErr checks an errno and its extack message from either front end.
func (w *stressWorker) kernelErr(en syscall.Errno, msg string) error {
	switch {
	case en == 0:
		return fmt.Errorf("an error without an errno: %q", msg)
	case en == syscall.EBADF:
		return fmt.Errorf("EBADF on an open Handle or socket: %q", msg)
	case strings.Contains(msg, "has been deleted"):
		if w.held {
			return fmt.Errorf("the namespace died under an open Handle or socket: %q", msg)
		}
		// Opened after the namespace's last reference went, as opening
		// /run/netns/NAME may race with its deletion: leave it.
		w.leave()
		w.enter(w.k.InitNet())
	}
	w.errnos[en]++
	return nil
}

func (w *stressWorker) wireLink(typ netlink.HeaderType, flags netlink.HeaderFlags, m *rtnetlink.LinkMessage) error {
	return w.wire(typ, flags, m)
}

func (w *stressWorker) wire(typ netlink.HeaderType, flags netlink.HeaderFlags, m interface{ MarshalBinary() ([]byte, error) }) error {
	b, err := m.MarshalBinary()
	if err != nil {
		return err
	}
	return w.wireRaw(typ, flags|netlink.Acknowledge, b)
}

func (w *stressWorker) wireNexthop(typ netlink.HeaderType, id nexthop.ID, attrs func(*netlink.AttributeEncoder)) error {
	ae := netlink.NewAttributeEncoder()
	ae.Uint32(uapi.NHA_ID, uint32(id))
	if attrs != nil {
		attrs(ae)
	}
	ab, err := ae.Encode()
	if err != nil {
		return err
	}
	hdr := make([]byte, 8) // struct nhmsg
	hdr[0] = syscall.AF_INET
	binary.LittleEndian.PutUint32(hdr[4:], 0)
	flags := netlink.Acknowledge
	if typ == uapi.RTM_NEWNEXTHOP {
		flags |= netlink.Create | netlink.Excl
	} else {
		hdr[0] = 0
	}
	return w.wireRaw(typ, flags, append(hdr, ab...))
}

// wireRaw sends one request on the worker's socket and checks the answer.
func (w *stressWorker) wireRaw(typ netlink.HeaderType, flags netlink.HeaderFlags, body []byte) error {
	_, err := w.c.Execute(netlink.Message{Header: netlink.Header{Type: typ, Flags: netlink.Request | flags}, Data: body})
	if err == nil {
		w.held = true
		return nil
	}
	var oe *netlink.OpError
	if !errors.As(err, &oe) {
		return fmt.Errorf("not a netlink.OpError: %T %v", err, err)
	}
	var en syscall.Errno
	if !errors.As(oe.Err, &en) {
		return fmt.Errorf("a netlink error without an errno: %v", err)
	}
	return w.kernelErr(en, oe.Message)
}

func errnoCounts(m map[syscall.Errno]int) string {
	var out []string
	for e, n := range m {
		out = append(out, fmt.Sprintf("%s %d", errnoName(e), n))
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

func errnoName(e syscall.Errno) string {
	for _, x := range []struct {
		e syscall.Errno
		s string
	}{{syscall.EEXIST, "EEXIST"}, {syscall.ENOENT, "ENOENT"}, {syscall.ENODEV, "ENODEV"}, {syscall.EINVAL, "EINVAL"},
		{syscall.ENETDOWN, "ENETDOWN"}, {syscall.ESRCH, "ESRCH"}, {syscall.EBUSY, "EBUSY"}, {syscall.ENETUNREACH, "ENETUNREACH"},
		{syscall.EADDRNOTAVAIL, "EADDRNOTAVAIL"}, {syscall.EAFNOSUPPORT, "EAFNOSUPPORT"}, {syscall.EOPNOTSUPP, "EOPNOTSUPP"}} {
		if x.e == e {
			return x.s
		}
	}
	return fmt.Sprintf("errno %d", int(e))
}
