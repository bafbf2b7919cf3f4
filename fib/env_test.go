package fib

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/sim"
)

// env is a FIB wired to a netdev stack and a nexthop table the way package
// rtnl wires them: netdev and address notifiers, the nexthop gateway
// checker and flusher. One task does everything, holding RTNL.
type env struct {
	tb   testing.TB
	w    *sim.World
	rtnl *sim.Mutex
	t    *sim.Task
	s    *netdev.Stack
	devs *netdev.Table
	nh   *nexthop.Table
	f    *FIB
}

func newEnv(tb testing.TB, p nexthop.Policy) *env {
	tb.Helper()
	w := sim.MustNewWorld(sim.Options{})
	e := &env{tb: tb, w: w, rtnl: w.NewMutex("RTNL"), t: w.NewTask("ip")}
	var err error
	if e.s, err = netdev.NewStack(w, e.rtnl, netdev.Config{}); err != nil {
		tb.Fatal(err)
	}
	e.nh = nexthop.NewTable(p)
	e.f = New(e.nh)
	e.nh.SetGatewayScopeChecker(e.f.CheckGatewayScope)
	// nh_netdev_event runs before fib_netdev_event (nexthop_init is a
	// subsys_initcall, ip_fib_init runs from fs_initcall inet_init).
	e.s.RegisterNotifier(netdev.NotifierFunc(func(t *sim.Task, ev netdev.Event, d *netdev.Device) error {
		switch ev {
		case netdev.EventDown, netdev.EventUnregister, netdev.EventChange:
			e.nh.FlushDev(t, d, ev, e.f)
		}
		return nil
	}))
	e.s.RegisterNotifier(e.f)
	e.s.RegisterAddrNotifier(e.f.InetAddrEvent)
	e.rtnl.Lock(e.t)
	e.devs, err = e.s.NewTable(e.t, "")
	e.rtnl.Unlock(e.t)
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// do runs fn with RTNL held and finishes unregistered devices afterwards.
func (e *env) do(fn func() error) error {
	e.rtnl.Lock(e.t)
	err := fn()
	todo := e.s.TakeTodo()
	e.rtnl.Unlock(e.t)
	e.s.RunTodo(e.t, todo)
	return err
}

func (e *env) dev(name string) *netdev.Device {
	d := e.devs.ByName(name)
	if d == nil {
		e.tb.Fatalf("no device %s", name)
	}
	return d
}

// ip runs one line of the subset of `ip -batch` the tests use and returns
// its error.
func (e *env) ip(line string) error {
	w := strings.Fields(line)
	if len(w) < 2 {
		return fmt.Errorf("bad line %q", line)
	}
	switch w[0] {
	case "link":
		return e.ipLink(w[1:])
	case "addr", "address":
		return e.ipAddr(w[1:])
	case "nexthop":
		return e.ipNexthop(w[1:])
	case "route":
		return e.ipRoute(w[1:])
	case "rule":
		// The first custom rule unmerges local from main.
		return e.do(func() error { return e.f.Unmerge(e.t) })
	}
	return fmt.Errorf("unknown object in %q", line)
}

// mustIP runs lines and fails the test on the first error.
func (e *env) mustIP(lines ...string) {
	e.tb.Helper()
	for _, l := range lines {
		if err := e.ip(l); err != nil {
			e.tb.Fatalf("%s: %v", l, err)
		}
	}
}

func (e *env) ipLink(w []string) error {
	switch {
	case w[0] == "add" && len(w) >= 7 && w[2] == "type" && w[3] == "veth":
		return e.do(func() error {
			_, err := e.devs.NewLink(e.t, netdev.Veth{Name: w[1], Peer: w[6]})
			return err
		})
	case w[0] == "add" && len(w) >= 4 && w[2] == "type" && w[3] == "dummy":
		return e.do(func() error {
			_, err := e.devs.NewLink(e.t, netdev.Dummy{Name: w[1]})
			return err
		})
	case w[0] == "set" && len(w) == 3:
		d := e.dev(w[1])
		return e.do(func() error { return d.SetUp(e.t, w[2] == "up") })
	case w[0] == "del" && len(w) == 2:
		d := e.dev(w[1])
		return e.do(func() error { return e.devs.DelLink(e.t, d) })
	}
	return fmt.Errorf("link %v", w)
}

func (e *env) ipAddr(w []string) error {
	a := netdev.Addr{Prefix: netip.MustParsePrefix(w[1])}
	var d *netdev.Device
	for i := 2; i+1 < len(w); i += 2 {
		switch w[i] {
		case "dev":
			d = e.dev(w[i+1])
		case "brd", "broadcast":
			if w[i+1] == "+" {
				m := mask(a.Prefix.Bits())
				a.Broadcast = addrFrom4(addr4(a.Prefix.Addr()) | ^m)
			} else {
				a.Broadcast = netip.MustParseAddr(w[i+1])
			}
		}
	}
	switch w[0] {
	case "add":
		return e.do(func() error { return d.AddInet4(e.t, a) })
	case "del":
		return e.do(func() error { return d.DelInet4(e.t, a.Prefix) })
	}
	return fmt.Errorf("addr %v", w)
}

func (e *env) ipNexthop(w []string) error {
	switch w[0] {
	case "add", "replace":
		var cfg nexthop.Config
		for i := 1; i < len(w); i++ {
			switch w[i] {
			case "id":
				i++
				id, _ := strconv.Atoi(w[i])
				cfg.ID = nexthop.ID(id)
			case "via":
				i++
				cfg.Gateway = netip.MustParseAddr(w[i])
				cfg.Family = syscall.AF_INET
			case "dev":
				i++
				cfg.Dev = e.dev(w[i])
				if cfg.Family == 0 {
					cfg.Family = syscall.AF_INET
				}
			case "onlink":
				cfg.OnLink = true
			case "blackhole":
				cfg.Blackhole = true
			case "group":
				i++
				for _, m := range strings.Split(w[i], "/") {
					id, wt, _ := strings.Cut(m, ",")
					n, _ := strconv.Atoi(id)
					g := nexthop.GroupMember{ID: nexthop.ID(n)}
					if wt != "" {
						x, _ := strconv.Atoi(wt)
						g.Weight = uint16(x)
					}
					cfg.Group = append(cfg.Group, g)
				}
			}
		}
		return e.do(func() error {
			var err error
			if w[0] == "add" {
				_, err = e.nh.Add(e.t, cfg)
			} else {
				_, err = e.nh.Replace(e.t, cfg, e.f)
			}
			return err
		})
	case "del":
		id, _ := strconv.Atoi(w[2])
		return e.do(func() error { return e.nh.Del(e.t, nexthop.ID(id), e.f) })
	}
	return fmt.Errorf("nexthop %v", w)
}

var typeByName = map[string]Type{"unicast": TypeUnicast, "local": TypeLocal, "broadcast": TypeBroadcast,
	"blackhole": TypeBlackhole, "unreachable": TypeUnreachable, "prohibit": TypeProhibit, "throw": TypeThrow}

var scopeByName = map[string]Scope{"global": ScopeUniverse, "universe": ScopeUniverse, "link": ScopeLink, "host": ScopeHost, "site": ScopeSite}

var tableByName = map[string]uint32{"main": TableMain, "local": TableLocal, "default": TableDefault}

var protoByName = map[string]Protocol{"kernel": ProtoKernel, "static": ProtoStatic, "boot": ProtoBoot}

// byName returns names[v], or v read as a number, as iproute2 accepts
// either for a table or a protocol.
func byName[T ~uint8 | ~uint32](names map[string]T, v string) T {
	if x, ok := names[v]; ok {
		return x
	}
	n, _ := strconv.Atoi(v)
	return T(n)
}

// parseRoute parses `ip route` arguments after the command, with
// iproute2's defaults for additions (protocol boot; scope link for a route
// with neither gateway nor nexthop; scope host for local routes).
func (e *env) parseRoute(w []string, del bool) (Route, error) {
	var r Route
	scopeSet := false
	if !del {
		r.Protocol = ProtoBoot
	}
	for i := 0; i < len(w); i++ {
		arg := func() string { i++; return w[i] }
		switch w[i] {
		case "via":
			r.Gateway = netip.MustParseAddr(arg())
		case "dev":
			r.Dev = e.dev(arg())
		case "table":
			r.Table = byName(tableByName, arg())
		case "nhid":
			n, _ := strconv.Atoi(arg())
			r.NexthopID = nexthop.ID(n)
		case "metric", "priority":
			n, _ := strconv.Atoi(arg())
			r.Priority = uint32(n)
		case "src":
			r.PrefSrc = netip.MustParseAddr(arg())
		case "proto":
			r.Protocol = byName(protoByName, arg())
		case "scope":
			r.Scope = scopeByName[arg()]
			scopeSet = true
		case "tos":
			n, _ := strconv.ParseUint(strings.TrimPrefix(arg(), "0x"), 16, 8)
			r.TOS = uint8(n)
		case "onlink":
			r.OnLink = true
		case "nexthop":
			var p Path
			for i+1 < len(w) && w[i+1] != "nexthop" {
				switch w[i+1] {
				case "via":
					i++
					p.Gateway = netip.MustParseAddr(arg())
				case "dev":
					i++
					p.Dev = e.dev(arg())
				case "weight":
					i++
					p.Weight, _ = strconv.Atoi(arg())
				case "onlink":
					i++
					p.OnLink = true
				default:
					goto done
				}
			}
		done:
			r.Multipath = append(r.Multipath, p)
		default:
			if ty, ok := typeByName[w[i]]; ok {
				r.Type = ty
				continue
			}
			if w[i] == "default" {
				r.Dst = netip.MustParsePrefix("0.0.0.0/0")
				continue
			}
			p, err := netip.ParsePrefix(w[i])
			if err != nil {
				a, err2 := netip.ParseAddr(w[i])
				if err2 != nil {
					return r, fmt.Errorf("route arg %q", w[i])
				}
				p = netip.PrefixFrom(a, 32)
			}
			r.Dst = p
		}
	}
	if !scopeSet && !del {
		switch {
		case r.Type == TypeLocal:
			r.Scope = ScopeHost
		case r.Type == TypeBroadcast:
			r.Scope = ScopeLink
		case (r.Type == TypeUnspec || r.Type == TypeUnicast) && !r.Gateway.IsValid() && r.NexthopID == 0 && len(r.Multipath) == 0:
			r.Scope = ScopeLink
		}
	}
	return r, nil
}

func (e *env) ipRoute(w []string) error {
	del := w[0] == "del" || w[0] == "delete"
	r, err := e.parseRoute(w[1:], del)
	if err != nil {
		return err
	}
	return e.do(func() error {
		switch w[0] {
		case "add":
			return e.f.Add(e.t, r, rt.ModeAdd)
		case "replace":
			return e.f.Add(e.t, r, rt.ModeReplace)
		case "change":
			return e.f.Add(e.t, r, rt.ModeChange)
		case "append":
			return e.f.Add(e.t, r, rt.ModeAppend)
		case "prepend":
			return e.f.Add(e.t, r, rt.ModePrepend)
		case "del", "delete":
			return e.f.Del(e.t, r)
		}
		return errno.New(syscall.EINVAL, "route "+w[0])
	})
}

// show renders every table's routes as `ip -4 route show table all` does,
// one route per line with iproute2's trailing spaces.
func (e *env) show() string {
	var b strings.Builder
	for _, r := range e.f.AllRoutes() {
		b.WriteString(ipFormat(r))
		b.WriteByte('\n')
	}
	return b.String()
}
