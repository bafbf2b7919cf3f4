//go:build linux

// The chase buffer on Linux: anonymous memory the kernel is asked to back
// with transparent huge pages (madvise mode), as the kernel's direct map is.

package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

const hugePage = 2 << 20

// hugeBuffer returns n bytes of anonymous memory aligned to 2 MB, advised
// MADV_HUGEPAGE and touched, and how many of its bytes the kernel backs
// with huge pages (AnonHugePages of its mapping in /proc/self/smaps).
func hugeBuffer(n int64) ([]byte, int64, error) {
	n = (n + hugePage - 1) / hugePage * hugePage
	raw, err := unix.Mmap(-1, 0, int(n+hugePage), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, 0, fmt.Errorf("mmap %d bytes: %v", n, err)
	}
	off := (hugePage - int64(uintptr(unsafe.Pointer(&raw[0])))%hugePage) % hugePage
	buf := raw[off : off+n]
	if err := unix.Madvise(buf, unix.MADV_HUGEPAGE); err != nil {
		return nil, 0, fmt.Errorf("madvise(MADV_HUGEPAGE): %v", err)
	}
	for i := int64(0); i < n; i += 4096 {
		buf[i] = 1
	}
	return buf, anonHuge(uintptr(unsafe.Pointer(&buf[0])), uintptr(n)), nil
}

// anonHuge sums AnonHugePages over the mappings of /proc/self/smaps that
// overlap [start, start+n).
func anonHuge(start, n uintptr) int64 {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return 0
	}
	defer f.Close()
	var total int64
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if lo, hi, ok := mappingRange(l); ok {
			in = lo < start+n && hi > start
			continue
		}
		if in && strings.HasPrefix(l, "AnonHugePages:") {
			if kb, err := strconv.ParseInt(strings.Fields(l)[1], 10, 64); err == nil {
				total += kb << 10
			}
		}
	}
	return total
}

// mappingRange parses the "lo-hi perms ..." header line of a mapping.
func mappingRange(l string) (uintptr, uintptr, bool) {
	f := strings.Fields(l)
	if len(f) < 5 {
		return 0, 0, false
	}
	a, b, ok := strings.Cut(f[0], "-")
	if !ok {
		return 0, 0, false
	}
	lo, err1 := strconv.ParseUint(a, 16, 64)
	hi, err2 := strconv.ParseUint(b, 16, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return uintptr(lo), uintptr(hi), true
}
