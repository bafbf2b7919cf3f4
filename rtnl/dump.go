// Dumps that resume from a cursor, one part at a time, as a netlink dump's
// dumpit does between the reader's reads (netlink_dump,
// net/netlink/af_netlink.c): each part takes RTNL, walks on from where the
// last one stopped, and keeps keys and positions, not the objects, in
// between.

package rtnl

// dumpGens are a namespace's generation counters that the dumps of links
// and addresses check between their parts (cb->seq). Guarded by RTNL.
type dumpGens struct {
	devBase uint32 // net->dev_base_seq: devices listed and unlisted
	addr4   uint32 // net->ipv4.dev_addr_genid: IPv4 addresses added and removed
	addr6   uint32 // net->ipv6.dev_addr_genid: IPv6 address messages
}

// devListed counts a device registered in or unregistered from the
// namespace.
//
// Kernel: dev_base_seq_inc in list_netdevice and unlist_netdevice
// (net/core/dev.c).
func (g *dumpGens) devListed() { g.devBase++ }

// baseSeq is a generation that is never 0: 0 turns the check off
// (nl_dump_check_consistent), so a sum that wraps to it is taken far away.
//
// Kernel: inet_base_seq (net/ipv4/devinet.c), inet6_base_seq
// (net/ipv6/addrconf.c).
func baseSeq(a, b uint32) uint32 {
	if s := a + b; s != 0 {
		return s
	}
	return 0x80000000
}

// DumpSeq is what a dump part reports beside its objects: the generation
// the dumpit read (cb->seq), which a front end compares between parts to
// flag an interrupted dump (NLM_F_DUMP_INTR), and whether the dump is done.
type DumpSeq struct {
	Seq  uint32
	Done bool
}

// ReadAll reads a dump whole, in one part (nothing is refused), as the
// list conveniences and ip, which reads a dump to its end before it
// prints, do: the dump's objects, or the error that refused it (err, from
// the call that started it) or ended it.
func ReadAll[T any, D interface {
	Next(func(*T) bool) (bool, error)
	Close()
}](d D, err error) ([]T, error) {
	if err != nil {
		return nil, err
	}
	defer d.Close()
	var out []T
	_, err = d.Next(func(x *T) bool {
		out = append(out, *x)
		return true
	})
	return out, err
}
