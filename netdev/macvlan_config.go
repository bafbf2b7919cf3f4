// A macvlan's configuration beside its mode: its flags, its broadcast
// queue length request and its port's broadcast cutoff, what
// macvlan_common_newlink and macvlan_changelink set and macvlan_fill_info
// reports (drivers/net/macvlan.c). The source mode's address lists are
// not modelled: a request for them is refused.

package netdev

import (
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/sim"
)

// The macvlan flags (IFLA_MACVLAN_FLAGS).
const (
	MacvlanFlagNoPromisc = 1 // MACVLAN_FLAG_NOPROMISC: a passthru macvlan leaves its lower's promiscuity alone
	MacvlanFlagNoDst     = 2 // MACVLAN_FLAG_NODST: a source macvlan does not look up destinations
)

// macvlanDefaultBcQueueLen is MACVLAN_DEFAULT_BC_QUEUE_LEN.
const macvlanDefaultBcQueueLen = 1000

// MacvlanSettings is what a request's IFLA_INFO_DATA sets on a macvlan
// besides the mode it is created with: nil is an attribute the request
// does not carry.
type MacvlanSettings struct {
	Mode       *MacvlanMode // IFLA_MACVLAN_MODE of a request that changes a macvlan
	Flags      *uint16      // IFLA_MACVLAN_FLAGS
	BcQueueLen *uint32      // IFLA_MACVLAN_BC_QUEUE_LEN
	BcCutoff   *int32       // IFLA_MACVLAN_BC_CUTOFF
	// MacaddrMode is IFLA_MACVLAN_MACADDR_MODE: the source mode's
	// address lists, which netsim does not model.
	MacaddrMode *uint32
	// MacaddrCount is IFLA_MACVLAN_MACADDR_COUNT, which a request may not
	// carry.
	MacaddrCount *uint32
	// Macaddr is IFLA_MACVLAN_MACADDR (nil: not sent): checked, then
	// used only with MacaddrMode.
	Macaddr []byte
}

// MacvlanInfo is what a macvlan reports in IFLA_INFO_DATA.
type MacvlanInfo struct {
	Mode           MacvlanMode // IFLA_MACVLAN_MODE
	Flags          uint16      // IFLA_MACVLAN_FLAGS
	BcQueueLen     uint32      // IFLA_MACVLAN_BC_QUEUE_LEN: the macvlan's request
	BcQueueLenUsed uint32      // IFLA_MACVLAN_BC_QUEUE_LEN_USED: its port's
	BcCutoff       int32       // IFLA_MACVLAN_BC_CUTOFF: its port's, sent when not 1
}

// macvlanState is a macvlan's own configuration (struct macvlan_dev).
type macvlanState struct {
	flags         uint16
	bcQueueLenReq uint32
}

// validateMacvlanData is macvlan_validate's checks of IFLA_INFO_DATA:
// flags other than nopromisc and nodst, an unknown mode or address mode,
// and an address count are bare EINVALs.
func validateMacvlanData(mode MacvlanMode, s MacvlanSettings) error {
	if s.Flags != nil && *s.Flags&^(MacvlanFlagNoPromisc|MacvlanFlagNoDst) != 0 {
		return errno.New(syscall.EINVAL, "")
	}
	switch mode {
	case 0, MacvlanPrivate, MacvlanVEPA, MacvlanBridge, MacvlanPassthru, MacvlanSource:
	default:
		return errno.New(syscall.EINVAL, "")
	}
	if s.MacaddrMode != nil && *s.MacaddrMode > 3 { // MACVLAN_MACADDR_ADD..SET
		return errno.New(syscall.EINVAL, "")
	}
	if a := s.Macaddr; a != nil {
		if len(a) != len(MAC{}) {
			return errno.New(syscall.EINVAL, "")
		}
		if m := MAC(a); m.IsMulticast() || m == (MAC{}) {
			return errno.New(syscall.EADDRNOTAVAIL, "")
		}
	}
	if s.MacaddrCount != nil {
		return errno.New(syscall.EINVAL, "")
	}
	return nil
}

// macaddrRefusal is the answer to a request for the source mode's address
// lists: EINVAL outside source mode (macvlan_common_newlink,
// macvlan_changelink), else refused as not modelled.
func macaddrRefusal(mode MacvlanMode) error {
	if mode != MacvlanSource {
		return errno.New(syscall.EINVAL, "")
	}
	return errno.New(syscall.EOPNOTSUPP, "IFLA_MACVLAN_MACADDR_MODE (the source mode's address lists) is not modelled by netsim")
}

// MacvlanInfo returns a macvlan's IFLA_INFO_DATA, or nil for other kinds.
// The port's used queue length is the largest its registered macvlans ask
// for: 0 in the RTM_DELLINK of a port's last macvlan, which
// macvlan_dellink takes off the port's list first.
//
// Kernel: macvlan_fill_info, update_port_bc_queue_len (drivers/net/macvlan.c).
func (d *Device) MacvlanInfo() *MacvlanInfo {
	m := d.priv.macvlan
	if m == nil {
		return nil
	}
	info := &MacvlanInfo{Mode: d.priv.macvlanMode, Flags: m.flags, BcQueueLen: m.bcQueueLenReq, BcCutoff: 1}
	if l := d.link; l != nil {
		info.BcCutoff = l.priv.macvlanPort.bcCutoff
		for _, u := range l.uppers {
			if u.priv.macvlan != nil && u.Registered() && u.priv.macvlan.bcQueueLenReq > info.BcQueueLenUsed {
				info.BcQueueLenUsed = u.priv.macvlan.bcQueueLenReq
			}
		}
	}
	return info
}

// ChangeMacvlan applies a request's IFLA_MACVLAN_* attributes to macvlan
// d: the mode (passthru can be neither set nor cleared: a bare EINVAL),
// the flags (a passthru macvlan's nopromisc takes back, or gives, its
// lower's promiscuity at once, up or not), the broadcast queue length and
// cutoff. A refused request changes nothing.
//
// Kernel: macvlan_validate, macvlan_changelink (drivers/net/macvlan.c).
func (d *Device) ChangeMacvlan(t *sim.Task, s MacvlanSettings) error {
	m := d.priv.macvlan
	if m == nil {
		return errno.Errorf(syscall.EOPNOTSUPP, "Device \"%s\" is not a macvlan", d.name)
	}
	mode := d.priv.macvlanMode
	var newMode MacvlanMode
	if s.Mode != nil {
		newMode = *s.Mode
	}
	if err := validateMacvlanData(newMode, s); err != nil {
		return err
	}
	if s.Mode != nil && (newMode == MacvlanPassthru) != (mode == MacvlanPassthru) {
		return errno.New(syscall.EINVAL, "")
	}
	if s.MacaddrMode != nil {
		end := mode
		if s.Mode != nil {
			end = newMode
		}
		if err := macaddrRefusal(end); err != nil {
			return err
		}
	}
	if f := s.Flags; f != nil {
		if mode == MacvlanPassthru && (*f^m.flags)&MacvlanFlagNoPromisc != 0 {
			if *f&MacvlanFlagNoPromisc != 0 {
				d.link.SetPromiscuity(t, -1)
			} else {
				d.link.SetPromiscuity(t, 1)
			}
		}
		m.flags = *f
	}
	if s.BcQueueLen != nil {
		m.bcQueueLenReq = *s.BcQueueLen
	}
	if s.BcCutoff != nil {
		d.link.priv.macvlanPort.bcCutoff = *s.BcCutoff
	}
	if s.Mode != nil {
		d.priv.macvlanMode = newMode
	}
	return nil
}
