// A bond's options: the values bond_changelink sets through the bonding
// option table, each option's mode dependencies, value table or range and
// the errors and extack messages __bond_opt_set gives, the defaults of a
// new bond, and what bond_fill_info reports (drivers/net/bonding/
// bond_netlink.c, bond_options.c; bond_main.c: bond_check_params;
// include/net/bonding.h, include/net/bond_options.h).

package netdev

import (
	"math"
	"net/netip"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/sim"
)

// bondMaxTargets is BOND_MAX_ARP_TARGETS (and BOND_MAX_NS_TARGETS).
const bondMaxTargets = 16

// bondDefaultMiimon is BOND_DEFAULT_MIIMON, the miimon a mode without ARP
// monitoring starts when none is set.
const bondDefaultMiimon = 100

// BondParams is a bond's configuration (struct bond_params) as
// IFLA_BOND_* reports it. The delays are in milliseconds: the bond keeps
// them as multiples of Miimon, so a later change of Miimon changes them.
type BondParams struct {
	Mode            BondMode
	Miimon          uint32       // IFLA_BOND_MIIMON, 0
	UpDelay         uint32       // IFLA_BOND_UPDELAY
	DownDelay       uint32       // IFLA_BOND_DOWNDELAY
	PeerNotifDelay  uint32       // IFLA_BOND_PEER_NOTIF_DELAY
	UseCarrier      uint8        // IFLA_BOND_USE_CARRIER: always 1 since Linux 6.18
	ArpInterval     uint32       // IFLA_BOND_ARP_INTERVAL
	ArpIPTargets    []netip.Addr // IFLA_BOND_ARP_IP_TARGET, in their slots' order
	NSIP6Targets    []netip.Addr // IFLA_BOND_NS_IP6_TARGET
	ArpValidate     uint32       // IFLA_BOND_ARP_VALIDATE: none, active, backup, all, filter, filter_active, filter_backup
	ArpAllTargets   uint32       // IFLA_BOND_ARP_ALL_TARGETS: any, all
	PrimaryReselect uint8        // IFLA_BOND_PRIMARY_RESELECT: always, better, failure
	FailOverMac     uint8        // IFLA_BOND_FAIL_OVER_MAC: none, active, follow
	XmitHashPolicy  uint8        // IFLA_BOND_XMIT_HASH_POLICY: layer2, layer3+4, layer2+3, encap2+3, encap3+4, vlan+srcmac
	ResendIGMP      uint32       // IFLA_BOND_RESEND_IGMP, 1
	NumPeerNotif    uint8        // IFLA_BOND_NUM_PEER_NOTIF (num_grat_arp, num_unsol_na), 1
	AllSlavesActive uint8        // IFLA_BOND_ALL_SLAVES_ACTIVE
	MinLinks        uint32       // IFLA_BOND_MIN_LINKS
	LpInterval      uint32       // IFLA_BOND_LP_INTERVAL, 1
	PacketsPerSlave uint32       // IFLA_BOND_PACKETS_PER_SLAVE, 1
	LacpActive      uint8        // IFLA_BOND_AD_LACP_ACTIVE, 1
	LacpRate        uint8        // IFLA_BOND_AD_LACP_RATE: slow, fast
	AdSelect        uint8        // IFLA_BOND_AD_SELECT: stable, bandwidth, count
	AdActorSysPrio  uint16       // IFLA_BOND_AD_ACTOR_SYS_PRIO, 65535
	AdUserPortKey   uint16       // IFLA_BOND_AD_USER_PORT_KEY
	AdActorSystem   MAC          // IFLA_BOND_AD_ACTOR_SYSTEM
	TLBDynamicLB    uint8        // IFLA_BOND_TLB_DYNAMIC_LB, 1
	MissedMax       uint8        // IFLA_BOND_MISSED_MAX, 2
	CoupledControl  uint8        // IFLA_BOND_COUPLED_CONTROL, 1
	BroadcastNeigh  uint8        // IFLA_BOND_BROADCAST_NEIGH
}

// BondInfo is what a bond reports in IFLA_INFO_DATA: its configuration,
// its active slave and its primary slave (0 for none).
type BondInfo struct {
	BondParams
	ActiveSlave IfIndex // IFLA_BOND_ACTIVE_SLAVE, sent when not 0
	Primary     IfIndex // IFLA_BOND_PRIMARY, sent when not 0
}

// BondSettings is what a request's IFLA_INFO_DATA sets on a bond, one
// field per IFLA_BOND_* attribute: nil is an attribute the request does
// not carry. A target list replaces the bond's (an empty one clears it);
// an invalid netip.Addr in it is an entry shorter than an address.
type BondSettings struct {
	Mode                                       *BondMode
	ActiveSlave                                *IfIndex // 0 clears the active slave
	Miimon, UpDelay, DownDelay, PeerNotifDelay *uint32
	UseCarrier                                 *uint8
	ArpInterval                                *uint32
	ArpIPTargets, NSIP6Targets                 *[]netip.Addr
	ArpValidate, ArpAllTargets                 *uint32
	Primary                                    *IfIndex // an ifindex naming no device clears the primary
	PrimaryReselect, FailOverMac               *uint8
	XmitHashPolicy                             *uint8
	ResendIGMP                                 *uint32
	NumPeerNotif, AllSlavesActive              *uint8
	MinLinks, LpInterval, PacketsPerSlave      *uint32
	LacpActive, LacpRate, AdSelect             *uint8
	AdActorSysPrio, AdUserPortKey              *uint16
	AdActorSystem                              []byte // nil: not sent; the kernel wants 6 bytes
	TLBDynamicLB, MissedMax                    *uint8
	CoupledControl, BroadcastNeigh             *uint8
}

// bondState is a bond's private state (struct bonding): its parameters
// with the delays as multiples of miimon, its primary slave, and the slave
// an active_slave request chose.
type bondState struct {
	p           BondParams // delays as multiples of Miimon
	primaryName string     // params.primary: the name a later slave becomes primary by
	primary     *Device    // primary_slave
	active      *Device    // curr_active_slave as a request set it; nil: the first slave that is up
}

// newBondState is a new bond's state: bond_check_params' defaults with the
// module's parameters unset.
func newBondState() *bondState {
	return &bondState{p: BondParams{
		UseCarrier: 1, ResendIGMP: 1, NumPeerNotif: 1, LpInterval: 1, PacketsPerSlave: 1,
		LacpActive: 1, AdActorSysPrio: 65535, TLBDynamicLB: 1, MissedMax: 2, CoupledControl: 1,
	}}
}

// bondModes is a set of modes (a BOND_MODE_ALL_EX mask).
type bondModes uint8

func modesOf(ms ...BondMode) bondModes {
	var s bondModes
	for _, m := range ms {
		s |= 1 << m
	}
	return s
}

// allModesExcept is BOND_MODE_ALL_EX.
func allModesExcept(ms ...BondMode) bondModes { return ^modesOf(ms...) }

// bondOpt is one entry of the kernel's bond_opts table: the modes it is
// refused in, its flags, and the values bond_opt_parse accepts (an exact
// value of its table, or one in [min, max] when the table has a maxval).
type bondOpt struct {
	name             string
	unsupp           bondModes
	noSlaves, ifDown bool // BOND_OPTFLAG_NOSLAVES, BOND_OPTFLAG_IFDOWN
	values           []uint64
	min, max         uint64
	hasMax           bool
	raw              bool // BOND_OPTFLAG_RAWVAL: no value check
}

var (
	arpModes  = modesOf(Bond8023AD, BondTLB, BondALB)
	primModes = allModesExcept(BondActiveBackup, BondTLB, BondALB)
	adModes   = allModesExcept(Bond8023AD)
)

func onOff() []uint64 { return []uint64{0, 1} }

func intmax() bondOpt { return bondOpt{min: 0, max: math.MaxInt32, hasMax: true} }

func upTo(n uint64) []uint64 {
	v := make([]uint64, n+1)
	for i := range v {
		v[i] = uint64(i)
	}
	return v
}

// The options bond_changelink sets, as bond_opts describes them.
var (
	optMode            = bondOpt{name: "mode", noSlaves: true, ifDown: true, values: upTo(6)}
	optActiveSlave     = bondOpt{name: "active_slave", unsupp: primModes, raw: true}
	optMiimon          = named("miimon", intmax())
	optUpDelay         = named("updelay", intmax())
	optDownDelay       = named("downdelay", intmax())
	optPeerNotifDelay  = named("peer_notif_delay", intmax())
	optUseCarrier      = bondOpt{name: "use_carrier", values: []uint64{1}}
	optArpInterval     = unsupp(named("arp_interval", intmax()), arpModes)
	optArpTargets      = bondOpt{name: "arp_ip_target", raw: true}
	optNSTargets       = bondOpt{name: "ns_ip6_target", raw: true}
	optArpValidate     = bondOpt{name: "arp_validate", unsupp: arpModes, values: upTo(6)}
	optArpAllTargets   = bondOpt{name: "arp_all_targets", values: onOff()}
	optPrimary         = bondOpt{name: "primary", unsupp: primModes, raw: true}
	optPrimaryReselect = bondOpt{name: "primary_reselect", values: upTo(2)}
	optFailOverMac     = bondOpt{name: "fail_over_mac", noSlaves: true, values: upTo(2)}
	optXmitHash        = bondOpt{name: "xmit_hash_policy", values: upTo(5)}
	optResendIGMP      = bondOpt{name: "resend_igmp", values: []uint64{0, 255, 1}, max: 255, hasMax: true}
	optNumPeerNotif    = bondOpt{name: "num_unsol_na", values: []uint64{0, 255, 1}, max: 255, hasMax: true}
	optAllSlavesActive = bondOpt{name: "all_slaves_active", values: onOff()}
	optMinLinks        = named("min_links", intmax())
	optLpInterval      = bondOpt{name: "lp_interval", min: 1, max: math.MaxInt32, hasMax: true}
	optPPS             = bondOpt{name: "packets_per_slave", unsupp: allModesExcept(BondRoundRobin), max: math.MaxUint16, hasMax: true}
	optLacpActive      = bondOpt{name: "lacp_active", unsupp: adModes, ifDown: true, values: onOff()}
	optLacpRate        = bondOpt{name: "lacp_rate", unsupp: adModes, ifDown: true, values: onOff()}
	optAdSelect        = bondOpt{name: "ad_select", ifDown: true, values: upTo(2)}
	optAdActorSysPrio  = bondOpt{name: "ad_actor_sys_prio", unsupp: adModes, min: 1, max: 65535, hasMax: true}
	optAdUserPortKey   = bondOpt{name: "ad_user_port_key", unsupp: adModes, ifDown: true, max: 1023, hasMax: true}
	optAdActorSystem   = bondOpt{name: "ad_actor_system", unsupp: adModes, raw: true}
	optTLBDynamicLB    = bondOpt{name: "tlb_dynamic_lb", unsupp: allModesExcept(BondTLB, BondALB), ifDown: true, values: onOff()}
	optMissedMax       = bondOpt{name: "arp_missed_max", unsupp: arpModes, min: 1, max: 255, hasMax: true}
	optCoupledControl  = bondOpt{name: "coupled_control", unsupp: adModes, ifDown: true, values: onOff()}
	optBroadcastNeigh  = bondOpt{name: "broadcast_neighbor", unsupp: adModes, values: onOff()}
)

func named(name string, o bondOpt) bondOpt { o.name = name; return o }

func unsupp(o bondOpt, m bondModes) bondOpt { o.unsupp = m; return o }

// bondOptMsg are the extack messages bond_opt_error_interpret sets.
const (
	bondMsgInvalid  = "invalid option value"
	bondMsgMode     = "option not supported in mode"
	bondMsgSlaves   = "unable to set option because the bond device has slaves"
	bondMsgUp       = "unable to set option because the bond is up"
	bondMsgNoDevice = "interface does not exist"
)

// check is bond_opt_check_deps then bond_opt_parse for a value option:
// EACCES in a mode the option is not for, ENOTEMPTY for a bond with
// slaves, EBUSY for one that is up, EINVAL for a value the option does
// not take; each with bond_opt_error_interpret's extack message.
//
// Kernel: __bond_opt_set (drivers/net/bonding/bond_options.c).
func (o bondOpt) check(b *Device, mode BondMode, v uint64) error {
	if err := o.deps(b, mode); err != nil {
		return err
	}
	if o.raw {
		return nil
	}
	for _, x := range o.values {
		if x == v {
			return nil
		}
	}
	if o.hasMax && v >= o.min && v <= o.max {
		return nil
	}
	return errno.New(syscall.EINVAL, bondMsgInvalid)
}

// deps is bond_opt_check_deps.
func (o bondOpt) deps(b *Device, mode BondMode) error {
	switch {
	case o.unsupp&(1<<mode) != 0:
		return errno.New(syscall.EACCES, bondMsgMode)
	case o.noSlaves && len(b.slaves) > 0:
		return errno.New(syscall.ENOTEMPTY, bondMsgSlaves)
	case o.ifDown && b.IsUp():
		return errno.New(syscall.EBUSY, bondMsgUp)
	}
	return nil
}

// BondInfo returns a bond's IFLA_INFO_DATA, or nil for other kinds.
//
// Kernel: bond_fill_info (drivers/net/bonding/bond_netlink.c).
func (d *Device) BondInfo() *BondInfo {
	bs := d.priv.bond
	if bs == nil {
		return nil
	}
	p := bs.p
	p.UpDelay, p.DownDelay, p.PeerNotifDelay = p.UpDelay*p.Miimon, p.DownDelay*p.Miimon, p.PeerNotifDelay*p.Miimon
	p.ArpIPTargets = append([]netip.Addr(nil), p.ArpIPTargets...)
	p.NSIP6Targets = append([]netip.Addr(nil), p.NSIP6Targets...)
	info := &BondInfo{BondParams: p}
	if p.Mode.usesPrimary() {
		if s := bondActiveSlave(d); s != nil {
			info.ActiveSlave = s.ifindex
		}
	}
	if bs.primary != nil {
		info.Primary = bs.primary.ifindex
	}
	return info
}

// ChangeBond applies a request's IFLA_BOND_* attributes to bond d, in
// bond_changelink's order; the first refused option refuses the request,
// and a refused request changes nothing (the kernel keeps the options set
// before the refused one).
//
// Kernel: bond_changelink (drivers/net/bonding/bond_netlink.c).
func (d *Device) ChangeBond(t *sim.Task, s BondSettings) error {
	bs := d.priv.bond
	if bs == nil {
		return errno.Errorf(syscall.EOPNOTSUPP, "Device \"%s\" is not a bond", d.name)
	}
	trial := *bs
	trial.p.ArpIPTargets = append([]netip.Addr(nil), bs.p.ArpIPTargets...)
	trial.p.NSIP6Targets = append([]netip.Addr(nil), bs.p.NSIP6Targets...)
	if err := trial.apply(d.tbl, d, s); err != nil {
		return err
	}
	bondReselect(t, d, func() { *bs = trial })
	return nil
}

// apply runs bond_changelink's steps on bs, the state of bond b, whose
// namespace's devices are tb.
func (bs *bondState) apply(tb *Table, b *Device, s BondSettings) error {
	p := &bs.p
	setU32 := func(o bondOpt, v *uint32, dst *uint32) error {
		if v == nil {
			return nil
		}
		if err := o.check(b, p.Mode, uint64(*v)); err != nil {
			return err
		}
		*dst = *v
		return nil
	}
	setU8 := func(o bondOpt, v *uint8, dst *uint8) error {
		if v == nil {
			return nil
		}
		if err := o.check(b, p.Mode, uint64(*v)); err != nil {
			return err
		}
		*dst = *v
		return nil
	}
	if s.Mode != nil {
		if err := optMode.check(b, p.Mode, uint64(*s.Mode)); err != nil {
			return err
		}
		bs.setMode(*s.Mode)
	}
	if s.ActiveSlave != nil {
		if err := bs.setActiveSlave(tb, b, *s.ActiveSlave); err != nil {
			return err
		}
	}
	var miimon uint32
	if s.Miimon != nil {
		miimon = *s.Miimon
		if err := optMiimon.check(b, p.Mode, uint64(miimon)); err != nil {
			return err
		}
		// bond_option_miimon_set: MII monitoring stops ARP monitoring.
		p.Miimon = miimon
		if miimon != 0 && p.ArpInterval != 0 {
			p.ArpInterval, p.ArpValidate = 0, 0
		}
	}
	for _, dl := range []struct {
		o   bondOpt
		v   *uint32
		dst *uint32
	}{{optUpDelay, s.UpDelay, &p.UpDelay}, {optDownDelay, s.DownDelay, &p.DownDelay}, {optPeerNotifDelay, s.PeerNotifDelay, &p.PeerNotifDelay}} {
		if dl.v == nil {
			continue
		}
		if err := dl.o.check(b, p.Mode, uint64(*dl.v)); err != nil {
			return err
		}
		// _bond_option_delay_set: a delay is a multiple of miimon,
		// rounded down; without MII monitoring a bare EPERM.
		if p.Miimon == 0 {
			return errno.New(syscall.EPERM, "")
		}
		*dl.dst = *dl.v / p.Miimon
	}
	if s.UseCarrier != nil {
		if err := optUseCarrier.check(b, p.Mode, uint64(*s.UseCarrier)); err != nil {
			return err
		}
	}
	if v := s.ArpInterval; v != nil {
		if *v != 0 && miimon != 0 {
			return errno.New(syscall.EINVAL, "ARP monitoring cannot be used with MII monitoring")
		}
		if err := optArpInterval.check(b, p.Mode, uint64(*v)); err != nil {
			return err
		}
		// bond_option_arp_interval_set: ARP monitoring stops MII
		// monitoring.
		p.ArpInterval = *v
		if *v != 0 {
			p.Miimon = 0
		}
	}
	if s.ArpIPTargets != nil {
		p.ArpIPTargets = p.ArpIPTargets[:0]
		for _, a := range *s.ArpIPTargets {
			if !a.IsValid() {
				return errno.New(syscall.EINVAL, "")
			}
			if err := bs.addTarget(&p.ArpIPTargets, a, bondIPTargetOK); err != nil {
				return err
			}
		}
	}
	if s.NSIP6Targets != nil {
		p.NSIP6Targets = p.NSIP6Targets[:0]
		for _, a := range *s.NSIP6Targets {
			if !a.IsValid() {
				return errno.New(syscall.EINVAL, "Invalid IPv6 address")
			}
			if err := bs.addTarget(&p.NSIP6Targets, a, bondIP6TargetOK); err != nil {
				return err
			}
		}
	}
	if v := s.ArpValidate; v != nil {
		if *v != 0 && miimon != 0 {
			return errno.New(syscall.EINVAL, "ARP validating cannot be used with MII monitoring")
		}
		if err := setU32(optArpValidate, v, &p.ArpValidate); err != nil {
			return err
		}
	}
	if err := setU32(optArpAllTargets, s.ArpAllTargets, &p.ArpAllTargets); err != nil {
		return err
	}
	if s.Primary != nil {
		if err := optPrimary.deps(b, p.Mode); err != nil {
			return err
		}
		bs.setPrimary(tb, b, *s.Primary)
	}
	for _, o := range []struct {
		o   bondOpt
		v   *uint8
		dst *uint8
	}{{optPrimaryReselect, s.PrimaryReselect, &p.PrimaryReselect}, {optFailOverMac, s.FailOverMac, &p.FailOverMac},
		{optXmitHash, s.XmitHashPolicy, &p.XmitHashPolicy}} {
		if err := setU8(o.o, o.v, o.dst); err != nil {
			return err
		}
	}
	if err := setU32(optResendIGMP, s.ResendIGMP, &p.ResendIGMP); err != nil {
		return err
	}
	if err := setU8(optNumPeerNotif, s.NumPeerNotif, &p.NumPeerNotif); err != nil {
		return err
	}
	if err := setU8(optAllSlavesActive, s.AllSlavesActive, &p.AllSlavesActive); err != nil {
		return err
	}
	for _, o := range []struct {
		o   bondOpt
		v   *uint32
		dst *uint32
	}{{optMinLinks, s.MinLinks, &p.MinLinks}, {optLpInterval, s.LpInterval, &p.LpInterval}, {optPPS, s.PacketsPerSlave, &p.PacketsPerSlave}} {
		if err := setU32(o.o, o.v, o.dst); err != nil {
			return err
		}
	}
	for _, o := range []struct {
		o   bondOpt
		v   *uint8
		dst *uint8
	}{{optLacpActive, s.LacpActive, &p.LacpActive}, {optLacpRate, s.LacpRate, &p.LacpRate}, {optAdSelect, s.AdSelect, &p.AdSelect}} {
		if err := setU8(o.o, o.v, o.dst); err != nil {
			return err
		}
	}
	for _, o := range []struct {
		o   bondOpt
		v   *uint16
		dst *uint16
	}{{optAdActorSysPrio, s.AdActorSysPrio, &p.AdActorSysPrio}, {optAdUserPortKey, s.AdUserPortKey, &p.AdUserPortKey}} {
		if o.v == nil {
			continue
		}
		if err := o.o.check(b, p.Mode, uint64(*o.v)); err != nil {
			return err
		}
		*o.dst = *o.v
	}
	if s.AdActorSystem != nil {
		if len(s.AdActorSystem) != len(MAC{}) {
			return errno.New(syscall.EINVAL, "")
		}
		if err := optAdActorSystem.deps(b, p.Mode); err != nil {
			return err
		}
		// bond_option_ad_actor_system_set: a multicast address is refused.
		var m MAC
		copy(m[:], s.AdActorSystem)
		if m.IsMulticast() {
			return errno.New(syscall.EINVAL, bondMsgInvalid)
		}
		p.AdActorSystem = m
	}
	for _, o := range []struct {
		o   bondOpt
		v   *uint8
		dst *uint8
	}{{optTLBDynamicLB, s.TLBDynamicLB, &p.TLBDynamicLB}, {optMissedMax, s.MissedMax, &p.MissedMax},
		{optCoupledControl, s.CoupledControl, &p.CoupledControl}, {optBroadcastNeigh, s.BroadcastNeigh, &p.BroadcastNeigh}} {
		if err := setU8(o.o, o.v, o.dst); err != nil {
			return err
		}
	}
	return nil
}

// setMode is bond_option_mode_set: a mode without ARP monitoring stops it
// and starts MII monitoring at BOND_DEFAULT_MIIMON; balance-alb turns on
// dynamic load balancing; arp_validate is not kept across modes.
func (bs *bondState) setMode(m BondMode) {
	p := &bs.p
	if !m.usesARP() {
		p.ArpInterval = 0
		if p.Miimon == 0 {
			p.Miimon = bondDefaultMiimon
		}
	}
	if m == BondALB {
		p.TLBDynamicLB = 1
	}
	p.ArpValidate = 0
	p.Mode = m
}

// usesARP is bond_mode_uses_arp: the modes ARP monitoring works in.
func (m BondMode) usesARP() bool { return m != Bond8023AD && m != BondTLB && m != BondALB }

// setActiveSlave is bond_changelink's IFLA_BOND_ACTIVE_SLAVE with
// bond_option_active_slave_set: 0 clears the choice; an unknown ifindex is
// a bare ENODEV; a device that is not this bond's slave, or a slave that
// is down while another is active, is refused (EINVAL).
func (bs *bondState) setActiveSlave(tb *Table, b *Device, i IfIndex) error {
	var s *Device
	if i != 0 {
		if s = tb.byIndex[i]; s == nil { // +checklocksignore: RTNL held
			return errno.New(syscall.ENODEV, "")
		}
	}
	if err := optActiveSlave.deps(b, bs.p.Mode); err != nil {
		return err
	}
	if s == nil {
		bs.active = nil
		return nil
	}
	if s.master != b {
		return errno.New(syscall.EINVAL, bondMsgInvalid)
	}
	old := bondActiveSlave(b)
	if s == old {
		return nil
	}
	if old == nil || !s.IsUp() || s.priv.bondSlave.link != BondLinkUp {
		return errno.New(syscall.EINVAL, bondMsgInvalid)
	}
	bs.active = s
	return nil
}

// setPrimary is bond_option_primary_set with the name of the device
// ifindex i names ("" for none): a slave of that name becomes the primary;
// another name is kept for a later slave of that name.
func (bs *bondState) setPrimary(tb *Table, b *Device, i IfIndex) {
	name := ""
	if d := tb.byIndex[i]; d != nil { // +checklocksignore: RTNL held
		name = d.name
	}
	bs.primaryName, bs.primary = name, nil
	for _, s := range b.slaves {
		if name != "" && s.name == name {
			bs.primary = s
		}
	}
}

// addTarget is _bond_option_arp_ip_target_add and
// bond_option_ns_ip6_targets_set: a target the bond cannot probe, one it
// has, or one too many is refused (EINVAL, "invalid option value").
func (bs *bondState) addTarget(list *[]netip.Addr, a netip.Addr, ok func(netip.Addr) bool) error {
	if !ok(a) || len(*list) >= bondMaxTargets {
		return errno.New(syscall.EINVAL, bondMsgInvalid)
	}
	for _, x := range *list {
		if x == a {
			return errno.New(syscall.EINVAL, bondMsgInvalid)
		}
	}
	*list = append(*list, a)
	return nil
}

// bondIPTargetOK is bond_is_ip_target_ok: not the limited broadcast
// address, not in 0.0.0.0/8.
func bondIPTargetOK(a netip.Addr) bool {
	return a.Is4() && a != netip.AddrFrom4([4]byte{255, 255, 255, 255}) && a.As4()[0] != 0
}

// bondIP6TargetOK is bond_is_ip6_target_ok: not ::, not ::1, not
// multicast.
func bondIP6TargetOK(a netip.Addr) bool {
	return a.Is6() && !a.IsUnspecified() && !a.IsLoopback() && !a.IsMulticast()
}
