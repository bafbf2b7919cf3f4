// devcounts.go counts, for inspection and for the device table's
// invariants, the routes via a device and the device references they hold
// (netdev.IPv6FIBCounts). The kernel keeps no such counts: these walk the
// tables and charge nothing.

package fib6

import "github.com/netsimlab/netsim/netdev"

// DevRoutes implements netdev.IPv6FIBCounts: the routes in the tables whose
// nexthop (own, or a nexthop object's) is dev, every route for dev nil; a
// multipath route counts once per sibling.
func (f *FIB) DevRoutes(dev *netdev.Device) int {
	n := 0
	f.eachLinked(func(r *Info) {
		d := r.fnh.dev
		if r.nhObj != nil {
			d = f.objDev(r.nhObj)
		}
		if dev == nil || d == dev {
			n++
		}
	})
	return n
}

// DevRefs implements netdev.IPv6FIBCounts: the references to dev that the
// routes in the tables hold, one for each route with its own nexthop via
// dev (fib6_nh_init's netdev_hold); routes through nexthop objects hold
// none of their own.
func (f *FIB) DevRefs(dev *netdev.Device) int64 {
	n := int64(0)
	f.eachLinked(func(r *Info) {
		if r.nhObj == nil && r.fnh.dev == dev {
			n++
		}
	})
	return n
}

// eachLinked calls fn for every route in every table, the null entry
// left out.
func (f *FIB) eachLinked(fn func(r *Info)) {
	f.eachTable(func(tb *Table) {
		tb.eachRoute(func(r *Info) {
			if r != f.nullEntry {
				fn(r)
			}
		})
	})
}

var _ netdev.IPv6FIBCounts = (*FIB)(nil)
