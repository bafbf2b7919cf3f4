// A github.com/jsimonetti/rtnetlink/v2 connection over a simulated
// NETLINK_ROUTE socket, for agent code written against that package.

package nlwire

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/jsimonetti/rtnetlink/v2"
	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/rtnl"
)

// DialRTNetlink opens a NETLINK_ROUTE socket in namespace n, as Dial does,
// and returns a github.com/jsimonetti/rtnetlink/v2 connection over it, for
// agent code written against that package.
func DialRTNetlink(n *rtnl.Net) (*rtnetlink.Conn, error) {
	return DialRTNetlinkConfig(n, nil)
}

// DialRTNetlinkConfig is DialRTNetlink with mdlayher/netlink's Config,
// applied as DialConfig applies it: what rtnetlink.Dial(config) does on
// Linux.
func DialRTNetlinkConfig(n *rtnl.Net, cfg *netlink.Config) (*rtnetlink.Conn, error) {
	c, err := DialConfig(n, cfg)
	if err != nil {
		return nil, err
	}
	return newRTNetlinkConn(c)
}

// newRTNetlinkConn builds the *rtnetlink.Conn that rtnetlink's unexported
// newConn builds over c: the Conn's unexported field c, and each service's
// (Link, Address, Route, Neigh, Rule) field c pointing back to the Conn.
// rtnetlink.Dial opens a real socket and nothing else takes a
// *netlink.Conn, so the fields are set through reflect and unsafe. This
// depends on rtnetlink's layout and is pinned to the version in go.mod,
// v2.3.0; TestRTNetlinkLayout fails, naming the field, if an upgrade
// changes it, and this function returns that error rather than panic.
func newRTNetlinkConn(c *netlink.Conn) (*rtnetlink.Conn, error) {
	rc := &rtnetlink.Conn{
		Link:    &rtnetlink.LinkService{},
		Address: &rtnetlink.AddressService{},
		Route:   &rtnetlink.RouteService{},
		Neigh:   &rtnetlink.NeighService{},
		Rule:    &rtnetlink.RuleService{},
	}
	set := func(v reflect.Value, x any) error {
		f := v.FieldByName("c")
		if !f.IsValid() || !reflect.TypeOf(x).AssignableTo(f.Type()) {
			return fmt.Errorf("nlwire: %s has no field c of a type %T can be assigned to: rtnetlink's layout changed (pinned to v2.3.0)", v.Type(), x)
		}
		reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Set(reflect.ValueOf(x))
		return nil
	}
	if err := set(reflect.ValueOf(rc).Elem(), c); err != nil {
		return nil, err
	}
	for _, svc := range []any{rc.Link, rc.Address, rc.Route, rc.Neigh, rc.Rule} {
		if err := set(reflect.ValueOf(svc).Elem(), rc); err != nil {
			return nil, err
		}
	}
	return rc, nil
}
