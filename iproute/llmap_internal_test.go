package iproute

import "testing"

// TestLLMapRemember: ll_remember_index on a cached index under a new name
// (a device renamed by someone else) moves the entry to the new name's
// bucket but keeps its old name (ll_entry_update): neither name finds it,
// unless both hash to one bucket, where the old name still does.
func TestLLMapRemember(t *testing.T) {
	if llBucket("d1") != llBucket("bs") || llBucket("d1") == llBucket("d2") {
		t.Fatalf("buckets: d1 %d, bs %d, d2 %d", llBucket("d1"), llBucket("bs"), llBucket("d2"))
	}
	if got := namehash("eth0"); got != 2090233046 { // djb2, as iproute2's namehash
		t.Errorf("namehash(eth0) = %d", got)
	}
	found := func(m *llMap, name string) bool { return m.byName[name] != nil }

	var m llMap
	m.remember(5, "d1")
	if !found(&m, "d1") {
		t.Fatal("d1 not cached")
	}
	m.remember(5, "d2")
	if found(&m, "d1") || found(&m, "d2") {
		t.Errorf("renamed to another bucket: d1 found %v, d2 found %v; want neither", found(&m, "d1"), found(&m, "d2"))
	}
	m.drop(5)
	if len(m.byIndex) != 0 || len(m.byName) != 0 {
		t.Errorf("after drop: %v %v", m.byIndex, m.byName)
	}

	m = llMap{}
	m.remember(5, "d1")
	m.remember(5, "bs")
	if !found(&m, "d1") || found(&m, "bs") {
		t.Errorf("renamed within the bucket: d1 found %v, bs found %v; want d1 only", found(&m, "d1"), found(&m, "bs"))
	}
	m.drop(0) // a request that named no device
	if !found(&m, "d1") {
		t.Error("drop(0) dropped d1")
	}
}
