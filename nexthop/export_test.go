package nexthop

// SetLastIDAllocated sets net->nexthop.last_id_allocated, to reach the
// wrap-around of nh_find_unused_id without 2^32 additions.
func (tb *Table) SetLastIDAllocated(v uint32) { tb.lastIDAllocated = v }
