package fib6

// Temporary stand-ins for the tree (ip6_fib.c) until i15-tree is merged.

import (
	"github.com/netsimlab/netsim/fib"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/sim"
)

func newFIB(w *sim.World, nh *nexthop.Table) *FIB            { panic("tree") }
func (f *FIB) newTable(id uint32) *Table                     { panic("tree") }
func (f *FIB) getTable(id uint32) *Table                     { panic("tree") }
func (f *FIB) newInfo() *Info                                { panic("tree") }
func (rt *Info) hold()                                       { panic("tree") }
func (f *FIB) release(t *sim.Task, rt *Info)                 { panic("tree") }
func (tb *Table) add(t *sim.Task, rt *Info, mode fib.Mode) error { panic("tree") }
func (f *FIB) del(t *sim.Task, rt *Info) error               { panic("tree") }
func (tb *Table) locate(dst, src key, exact bool) *node      { panic("tree") }
func (tb *Table) nodeLookup(dst, src [16]byte) *node         { panic("tree") }
func (f *FIB) backtrack(fn *node, saddr [16]byte) *node      { panic("tree") }
func (f *FIB) cleanAll(t *sim.Task, fn func(rt *Info) int)   { panic("tree") }
func (tb *Table) each(fn func(*Info) bool)                   { panic("tree") }
func (f *FIB) rt6Stats() string                              { panic("tree") }
func (f *FIB) ipv6Route() string                             { panic("tree") }
func (f *FIB) checkTree() error                              { panic("tree") }
