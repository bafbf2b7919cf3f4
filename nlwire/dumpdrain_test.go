package nlwire

import (
	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/nlwire/internal/uapi"
)

// drainDump runs a dumper to its end in parts of the largest size and
// returns its messages as a dumpit's callers saw them before dumps became
// lazy: Type, Data and the flags besides NLM_F_MULTI.
func drainDump(d dumper, err error) ([]netlink.Message, error) {
	if err != nil {
		return nil, err
	}
	defer d.close()
	var out []netlink.Message
	cb := &dumpState{}
	for {
		p := part{room: maxDumpAlloc, cb: cb}
		done, err := d.fill(&p)
		for _, m := range parseDatagram(p.b) {
			m.Header.Flags &^= uapi.NLM_F_MULTI
			m.Header.Length, m.Header.Sequence, m.Header.PID = 0, 0, 0
			out = append(out, m)
		}
		if err != nil && !(isFull(err) && p.n > 0) {
			return out, err
		}
		if err == nil && (done || p.n == 0) {
			return out, nil
		}
	}
}
