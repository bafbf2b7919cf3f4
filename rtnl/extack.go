// The errors for which netsim's kernel gives a message where Linux sets
// no extack (NL_SET_ERR_MSG in net/core/rtnetlink.c and the handlers it
// calls).

package rtnl

import (
	"strings"
	"syscall"
)

// noExtack lists the errors for which netsim's kernel gives a message
// where the real kernel sets no extack (ip prints them as "RTNETLINK
// answers: <strerror>"; a netlink socket gets no NLMSGERR_ATTR_MSG).
// Each is keyed by errno and message prefix.
var noExtack = []struct {
	errno  syscall.Errno
	prefix string
}{
	{syscall.EEXIST, "Device \""},                                // register_netdevice: dev_get_by_name clash
	{syscall.ENOENT, "Nexthop id does not exist"},                // rtm_get_nexthop, rtm_del_nexthop
	{syscall.EADDRNOTAVAIL, "Cannot assign a multicast address"}, // eth_prepare_mac_addr_change
	{syscall.EADDRNOTAVAIL, "Cannot assign the all-zero"},        // eth_prepare_mac_addr_change
	{syscall.EOPNOTSUPP, "Device \""},                            // do_set_master without ndo_add_slave; rtnl_dellink without dellink
	{syscall.EINVAL, "Device type cannot be bridged"},            // br_add_if: loopback, not Ethernet
	{syscall.EBUSY, "Device is in use by an rx handler"},         // br_add_if → netdev_rx_handler_register
	{syscall.ERANGE, "Forward delay out of range"},               // br_set_forward_delay
	{syscall.ERANGE, "Hello time out of range"},                  // br_set_hello_time
	{syscall.ERANGE, "Max age out of range"},                     // br_set_max_age
	{syscall.EOPNOTSUPP, "Bridge VLAN filtering"},                // br_vlan_filter_toggle without CONFIG_BRIDGE_VLAN_FILTERING
	{syscall.EINVAL, "Group forward mask"},                       // br_changelink: BR_GROUPFWD_RESTRICTED
	{syscall.EINVAL, "Invalid group address"},                    // br_changelink: IFLA_BR_GROUP_ADDR
	{syscall.EINVAL, "Invalid multicast router type"},            // br_multicast_set_router
	{syscall.EINVAL, "Invalid IGMP version"},                     // br_multicast_set_igmp_version
	{syscall.EINVAL, "Invalid MLD version"},                      // br_multicast_set_mld_version
	{syscall.ENETDOWN, "Port is down"},                           // br_set_port_state
	{syscall.EINVAL, "Invalid port state"},                       // br_set_port_state
	{syscall.EBUSY, "Port state is kept by STP"},                 // br_set_port_state
	{syscall.ERANGE, "Port priority out of range"},               // br_stp_set_port_priority
	{syscall.ERANGE, "Port path cost out of range"},              // br_stp_set_path_cost
	{syscall.ENOENT, "Backup device is not a bridge port"},       // br_setport, nbp_backup_change
	{syscall.EINVAL, "Invalid backup port"},                      // nbp_backup_change
	{syscall.EPERM, "Cannot delete the default group"},           // rtnl_group_dellink
	{syscall.ENODEV, "No device with ifindex"},                   // __dev_get_by_index's callers
	{syscall.ENODEV, "Cannot find device"},                       // rtnl_dev_get's callers
	{syscall.ENODEV, "Device name is required"},                  // __rtnl_newlink: no device, no group
	{syscall.EINVAL, "Device name is required"},                  // rtnl_setlink, rtnl_dellink, rtnl_getlink: no device named
}

// HasExtack reports whether the real kernel attaches an extack message to
// the error netsim's kernel gives as errno en with message msg: false for
// an empty message and for the errors whose message only netsim gives.
func HasExtack(en syscall.Errno, msg string) bool {
	if msg == "" {
		return false
	}
	for _, n := range noExtack {
		if en == n.errno && strings.HasPrefix(msg, n.prefix) {
			return false
		}
	}
	return true
}
