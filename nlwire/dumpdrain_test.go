package nlwire

import (
	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rt"
)

// drainDump runs a dumper to its end in parts of the largest size and
// returns its messages as a dumpit's callers saw them before dumps became
// lazy: Type, Data and the flags besides NLM_F_MULTI.
func drainDump(d dumper, err error) ([]netlink.Message, error) {
	msgs, _, err := drainDumpState(d, err)
	return msgs, err
}

// drainDumpState is drainDump that also returns the dump's state, with
// the answer flags its dumpit set.
func drainDumpState(d dumper, err error) (out []netlink.Message, cb *dumpState, _ error) {
	cb = &dumpState{}
	if err != nil {
		return nil, cb, err
	}
	defer d.close()
	for {
		p := part{room: maxDumpAlloc, cb: cb}
		done, err := d.fill(&p)
		msgs, perr := parseDatagram(p.b)
		if perr != nil {
			return out, cb, perr
		}
		for _, m := range msgs {
			m.Header.Flags &^= uapi.NLM_F_MULTI
			m.Header.Length, m.Header.Sequence, m.Header.PID = 0, 0, 0
			out = append(out, m)
		}
		if err != nil && !(isFull(err) && p.n > 0) {
			return out, cb, err
		}
		if err == nil && (done || p.n == 0) {
			return out, cb, nil
		}
	}
}

// listDumper serves a dump whose messages are made at once (an empty
// dump, a test's): it puts them in order, resuming at the first not yet
// put.
type listDumper struct {
	msgs []netlink.Message
	next int
}

func (l *listDumper) fill(p *part) (bool, error) {
	for ; l.next < len(l.msgs); l.next++ {
		m := &l.msgs[l.next]
		if err := p.put(rt.MsgType(m.Header.Type), m.Header.Flags, m.Data); err != nil {
			return false, err
		}
	}
	return true, nil
}

func (l *listDumper) close() {}
