//go:build ignore

// listen_helper is the helper of listeners.sh (see there): a netlink
// listener whose presence the script times the kernel's work against. It is
// not part of the module's build; listeners.sh builds it into a temporary
// directory.
//
//	rtnl [-groups LIST] [-rcvbuf BYTES] [-noread] READY
//	        an rtnetlink socket (NETLINK_ROUTE) bound to the RTNLGRP_*
//	        groups of LIST (comma-separated: link, ipv4_ifaddr, ipv4_route,
//	        ipv6_ifaddr, ipv6_route, nexthop, ...; default
//	        link,ipv4_route,ipv6_route,nexthop), its receive buffer forced to
//	        BYTES (SO_RCVBUFFORCE; default 64 MiB); reads every message, or
//	        with -noread never reads, so that its buffer fills and the kernel
//	        drops what does not fit (netlink_overrun)
//	uevent [-sysread] [-rcvbuf BYTES] READY
//	        a NETLINK_KOBJECT_UEVENT socket bound to its one group (what
//	        systemd-udevd listens to); with -sysread, for every event of a
//	        net device it reads the device's uevent file and the attributes
//	        udev's net rules read (address, ifindex, type, addr_assign_type,
//	        name_assign_type, iflink, dev_port, phys_port_name), as a udev
//	        worker would
//
// Both create READY once they listen, and on SIGTERM or SIGINT print one
// line: "listened <messages> <bytes> <overruns> <type>=<count>...", the
// types being rtnetlink message types (RTM_*) or uevent actions.
package main

import (
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"syscall"
)

// The RTNLGRP_* groups (include/uapi/linux/rtnetlink.h).
var groups = map[string]uint{
	"link": 1, "notify": 2, "neigh": 3, "tc": 4, "ipv4_ifaddr": 5,
	"ipv4_mroute": 6, "ipv4_route": 7, "ipv4_rule": 8, "ipv6_ifaddr": 9,
	"ipv6_mroute": 10, "ipv6_route": 11, "ipv6_ifinfo": 12, "ipv6_prefix": 18,
	"ipv6_rule": 19, "nd_useropt": 20, "ipv4_netconf": 24, "ipv6_netconf": 25,
	"nexthop": 32,
}

// The rtnetlink message types the experiments see (include/uapi/linux/rtnetlink.h).
var types = map[uint16]string{
	16: "NEWLINK", 17: "DELLINK", 20: "NEWADDR", 21: "DELADDR",
	24: "NEWROUTE", 25: "DELROUTE", 28: "NEWNEIGH", 29: "DELNEIGH",
	32: "NEWRULE", 33: "DELRULE", 68: "NEWPREFIX", 80: "NEWNETCONF",
	81: "DELNETCONF", 104: "NEWNEXTHOP", 105: "DELNEXTHOP",
}

const (
	solNetlink          = 270 // SOL_NETLINK
	netlinkAddMember    = 1   // NETLINK_ADD_MEMBERSHIP
	netlinkKobjectEvent = 15  // NETLINK_KOBJECT_UEVENT
)

// tally is what a listener received.
type tally struct {
	mu       sync.Mutex
	msgs     int64
	bytes    int64
	overruns int64
	by       map[string]int64
}

func (t *tally) add(kind string, n int) {
	t.mu.Lock()
	t.msgs++
	t.bytes += int64(n)
	t.by[kind]++
	t.mu.Unlock()
}

// recv reads the next datagram of fd into buf and returns its length,
// counting the overruns it is told of (ENOBUFS: the kernel dropped
// messages that did not fit the receive buffer) on the way.
func (t *tally) recv(fd int, buf []byte) int {
	for {
		n, _, err := syscall.Recvfrom(fd, buf, 0)
		switch {
		case errors.Is(err, syscall.ENOBUFS):
			t.mu.Lock()
			t.overruns++
			t.mu.Unlock()
		case errors.Is(err, syscall.EINTR):
		case err != nil:
			die("recv: %v", err)
		default:
			return n
		}
	}
}

func (t *tally) print() {
	t.mu.Lock()
	defer t.mu.Unlock()
	keys := make([]string, 0, len(t.by))
	for k := range t.by {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "listened %d %d %d", t.msgs, t.bytes, t.overruns)
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%d", k, t.by[k])
	}
	fmt.Println(b.String())
}

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	switch os.Args[1] {
	case "rtnl":
		rtnlListen(os.Args[2:])
	case "uevent":
		ueventListen(os.Args[2:])
	default:
		usage()
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: listen-helper rtnl [-groups LIST] [-rcvbuf BYTES] [-noread] READY | uevent [-sysread] [-rcvbuf BYTES] READY")
	os.Exit(2)
}

func die(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "listen-helper: "+format+"\n", a...)
	os.Exit(1)
}

// open returns a netlink socket of protocol proto bound to the groups of
// mask (the first 32) and of extra (by number), its receive buffer forced
// to rcvbuf bytes.
func open(proto int, mask uint32, extra []uint, rcvbuf int) int {
	fd, err := syscall.Socket(syscall.AF_NETLINK, syscall.SOCK_RAW|syscall.SOCK_CLOEXEC, proto)
	if err != nil {
		die("socket: %v", err)
	}
	if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_RCVBUFFORCE, rcvbuf); err != nil {
		die("SO_RCVBUFFORCE: %v", err)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK, Groups: mask}); err != nil {
		die("bind: %v", err)
	}
	for _, g := range extra {
		if err := syscall.SetsockoptInt(fd, solNetlink, netlinkAddMember, int(g)); err != nil {
			die("NETLINK_ADD_MEMBERSHIP %d: %v", g, err)
		}
	}
	return fd
}

// serve signals readiness through the file ready, runs loop in the
// background, and prints t on SIGTERM or SIGINT.
func serve(ready string, t *tally, loop func()) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	if err := os.WriteFile(ready, nil, 0o644); err != nil {
		die("%v", err)
	}
	go loop()
	<-sig
	t.print()
}

func rtnlListen(args []string) {
	fs := flag.NewFlagSet("rtnl", flag.ExitOnError)
	list := fs.String("groups", "link,ipv4_route,ipv6_route,nexthop", "RTNLGRP_* groups")
	rcvbuf := fs.Int("rcvbuf", 64<<20, "receive buffer (SO_RCVBUFFORCE)")
	noread := fs.Bool("noread", false, "never read: let the buffer overflow")
	fs.Parse(args)
	if fs.NArg() != 1 {
		usage()
	}
	var mask uint32
	var extra []uint
	for _, name := range strings.Split(*list, ",") {
		g, ok := groups[name]
		if !ok {
			die("unknown group %q", name)
		}
		if g <= 32 {
			mask |= 1 << (g - 1)
		} else {
			extra = append(extra, g)
		}
	}
	fd := open(syscall.NETLINK_ROUTE, mask, extra, *rcvbuf)
	t := &tally{by: map[string]int64{}}
	serve(fs.Arg(0), t, func() {
		if *noread {
			select {}
		}
		buf := make([]byte, 1<<20)
		for {
			n := t.recv(fd, buf)
			for b := buf[:n]; len(b) >= 16; {
				l := int(binary.NativeEndian.Uint32(b))
				typ := binary.NativeEndian.Uint16(b[4:])
				if l < 16 || l > len(b) {
					break
				}
				name, ok := types[typ]
				if !ok {
					name = fmt.Sprint(typ)
				}
				t.add(name, l)
				b = b[(l+3)&^3:]
			}
		}
	})
}

// netAttrs are the files of /sys/class/net/DEV a udev worker reads for a
// net device (its uevent file, and the attributes net_setup_link and the
// net_id builtin consult).
var netAttrs = []string{"uevent", "address", "ifindex", "type", "addr_assign_type",
	"name_assign_type", "iflink", "dev_port", "phys_port_name"}

func ueventListen(args []string) {
	fs := flag.NewFlagSet("uevent", flag.ExitOnError)
	sysread := fs.Bool("sysread", false, "read each net device's sysfs attributes")
	rcvbuf := fs.Int("rcvbuf", 64<<20, "receive buffer (SO_RCVBUFFORCE)")
	fs.Parse(args)
	if fs.NArg() != 1 {
		usage()
	}
	fd := open(netlinkKobjectEvent, 1, nil, *rcvbuf)
	t := &tally{by: map[string]int64{}}
	serve(fs.Arg(0), t, func() {
		buf := make([]byte, 1<<16)
		for {
			n := t.recv(fd, buf)
			// "ACTION@DEVPATH\0KEY=VALUE\0..."
			fields := strings.Split(string(buf[:n]), "\x00")
			action, devpath, _ := strings.Cut(fields[0], "@")
			subsystem := ""
			for _, f := range fields[1:] {
				if v, ok := strings.CutPrefix(f, "SUBSYSTEM="); ok {
					subsystem = v
				}
			}
			t.add(subsystem+":"+action, n)
			if *sysread && subsystem == "net" && action == "add" {
				for _, a := range netAttrs {
					os.ReadFile("/sys" + devpath + "/" + a) // a missing attribute is no error here
				}
			}
		}
	})
}
