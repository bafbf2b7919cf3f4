// `ip -d link show` of a bond and of a bond's port: iproute2's
// ip/iplink_bond.c (bond_print_opt) and ip/iplink_bond_slave.c
// (bond_slave_print_opt).

package iproute

import (
	"net/netip"

	"github.com/netsimlab/netsim/rtnl"
)

// The names bond_print_opt gives the values of a bond's options, by value.
var (
	bondModeNames         = []string{"balance-rr", "active-backup", "balance-xor", "broadcast", "802.3ad", "balance-tlb", "balance-alb"}
	bondArpValidateNames  = []string{"none", "active", "backup", "all", "filter", "filter_active", "filter_backup"}
	bondArpAllTargetNames = []string{"any", "all"}
	bondPrimaryReselNames = []string{"always", "better", "failure"}
	bondFailOverMacNames  = []string{"none", "active", "follow"}
	bondXmitHashNames     = []string{"layer2", "layer3+4", "layer2+3", "encap2+3", "encap3+4", "vlan+srcmac"}
	bondOffOnNames        = []string{"off", "on"}
	bondLacpRateNames     = []string{"slow", "fast"}
	bondAdSelectNames     = []string{"stable", "bandwidth", "count"}
)

// bondName is bond_print_opt's get_name: the value's name, or "UNKNOWN".
func bondName(tbl []string, v uint64) string {
	if v < uint64(len(tbl)) {
		return tbl[v]
	}
	return "UNKNOWN"
}

// bondPrintOpt is bond_print_opt for what bond_fill_info sends.
func (ip *IP) bondPrintOpt(l rtnl.LinkInfo, names linkNames) {
	p := &ip.p
	b := l.Bond
	if b == nil {
		return
	}
	p.str(printAny, "mode", "mode %s ", bondName(bondModeNames, uint64(b.Mode)))
	if b.ActiveSlave != 0 {
		p.str(printAny, "active_slave", "active_slave %s ", names.name(b.ActiveSlave))
	}
	p.uint(printAny, "miimon", "miimon %d ", uint64(b.Miimon))
	p.uint(printAny, "updelay", "updelay %d ", uint64(b.UpDelay))
	p.uint(printAny, "downdelay", "downdelay %d ", uint64(b.DownDelay))
	p.uint(printAny, "peer_notify_delay", "peer_notify_delay %d ", uint64(b.PeerNotifDelay))
	p.uint(printAny, "use_carrier", "use_carrier %d ", uint64(b.UseCarrier))
	p.uint(printAny, "arp_interval", "arp_interval %d ", uint64(b.ArpInterval))
	p.uint(printAny, "arp_missed_max", "arp_missed_max %d ", uint64(b.MissedMax))
	ip.bondTargets("arp_ip_target", b.ArpIPTargets)
	ip.bondTargets("ns_ip6_target", b.NSIP6Targets)
	if b.ArpValidate == 0 && p.isJSON() {
		p.null(printJSON, "arp_validate", "", "")
	} else {
		p.str(printAny, "arp_validate", "arp_validate %s ", bondName(bondArpValidateNames, uint64(b.ArpValidate)))
	}
	p.str(printAny, "arp_all_targets", "arp_all_targets %s ", bondName(bondArpAllTargetNames, uint64(b.ArpAllTargets)))
	if b.Primary != 0 {
		p.str(printAny, "primary", "primary %s ", names.name(b.Primary))
	}
	p.str(printAny, "primary_reselect", "primary_reselect %s ", bondName(bondPrimaryReselNames, uint64(b.PrimaryReselect)))
	p.str(printAny, "fail_over_mac", "fail_over_mac %s ", bondName(bondFailOverMacNames, uint64(b.FailOverMac)))
	p.str(printAny, "xmit_hash_policy", "xmit_hash_policy %s ", bondName(bondXmitHashNames, uint64(b.XmitHashPolicy)))
	p.uint(printAny, "resend_igmp", "resend_igmp %d ", uint64(b.ResendIGMP))
	p.uint(printAny, "num_peer_notif", "num_grat_arp %d ", uint64(b.NumPeerNotif))
	p.uint(printAny, "all_slaves_active", "all_slaves_active %d ", uint64(b.AllSlavesActive))
	p.uint(printAny, "min_links", "min_links %d ", uint64(b.MinLinks))
	p.uint(printAny, "lp_interval", "lp_interval %d ", uint64(b.LpInterval))
	p.uint(printAny, "packets_per_slave", "packets_per_slave %d ", uint64(b.PacketsPerSlave))
	p.str(printAny, "ad_lacp_active", "lacp_active %s ", bondName(bondOffOnNames, uint64(b.LacpActive)))
	p.str(printAny, "ad_lacp_rate", "lacp_rate %s ", bondName(bondLacpRateNames, uint64(b.LacpRate)))
	p.str(printAny, "ad_select", "ad_select %s ", bondName(bondAdSelectNames, uint64(b.AdSelect)))
	if b.Mode == 4 { // 802.3ad: bond_fill_info sends the actor's settings
		p.uint(printAny, "ad_actor_sys_prio", "ad_actor_sys_prio %d ", uint64(b.AdActorSysPrio))
		p.uint(printAny, "ad_user_port_key", "ad_user_port_key %d ", uint64(b.AdUserPortKey))
		p.str(printAny, "ad_actor_system", "ad_actor_system %s ", macString(b.AdActorSystem))
	}
	p.uint(printAny, "tlb_dynamic_lb", "tlb_dynamic_lb %d ", uint64(b.TLBDynamicLB))
}

// bondTargets prints a target list as bond_print_opt does: in text
// "NAME a,b " (nothing for an empty list), in JSON an array of strings.
func (ip *IP) bondTargets(key string, list []netip.Addr) {
	p := &ip.p
	if len(list) == 0 {
		return
	}
	p.openArray(printJSON, key)
	p.str(printFP, "", "%s", key+" ")
	for i, a := range list {
		p.str(printAny, "", "%s", a.String())
		if !p.isJSON() && i < len(list)-1 {
			p.text(",")
		}
	}
	p.str(printFP, "", "%s", " ")
	p.closeArray(printJSON, "")
}

// The names bond_slave_print_opt gives a port's state and MII status.
var (
	bondSlaveStateNames = []string{"ACTIVE", "BACKUP"}
	bondSlaveMIINames   = []string{"UP", "GOING_DOWN", "DOWN", "GOING_BACK"}
)

// bondSlavePrintOpt is bond_slave_print_opt for what bond_fill_slave_info
// sends.
func (ip *IP) bondSlavePrintOpt(l rtnl.LinkInfo, _ linkNames) {
	p := &ip.p
	s := l.BondSlave
	if s == nil {
		return
	}
	if int(s.State) < len(bondSlaveStateNames) {
		p.str(printAny, "state", "state %s ", bondSlaveStateNames[s.State])
	} else {
		p.int(printAny, "state_index", "state %d ", int64(s.State))
	}
	if int(s.MIIStatus) < len(bondSlaveMIINames) {
		p.str(printAny, "mii_status", "mii_status %s ", bondSlaveMIINames[s.MIIStatus])
	} else {
		p.int(printAny, "mii_status_index", "mii_status %d ", int64(s.MIIStatus))
	}
	p.int(printAny, "link_failure_count", "link_failure_count %d ", int64(int32(s.LinkFailureCount)))
	p.str(printAny, "perm_hwaddr", "perm_hwaddr %s ", macString(s.PermHWAddr))
	p.int(printAny, "queue_id", "queue_id %d ", int64(s.QueueID))
	p.int(printAny, "prio", "prio %d ", int64(s.Prio))
}
