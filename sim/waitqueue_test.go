package sim

import "testing"

// TestWaitQueueFIFO holds a queue at a steady 100 waiters through 100 000
// pushes and pops: the waiters come out in the order they went in, and the
// array stays within twice the queue's longest length (a slice popped from
// the front and appended to grows a new array again and again instead).
func TestWaitQueueFIFO(t *testing.T) {
	var wq waitQueue
	in, out := 0, 0
	push := func() {
		wq.push(mutexWaiter{since: Time(in)})
		in++
	}
	pop := func() {
		if w := wq.pop(); w.since != Time(out) {
			t.Fatalf("pop %d: got waiter %d", out, w.since)
		}
		out++
	}
	for range 100 {
		push()
	}
	for range 100_000 {
		push()
		pop()
		if wq.len() != 100 {
			t.Fatalf("len %d after %d pushes and %d pops", wq.len(), in, out)
		}
		if cap(wq.q) > 2*101 {
			t.Fatalf("cap %d at %d waiters", cap(wq.q), wq.len())
		}
	}
	for wq.len() > 0 {
		pop()
	}
	if out != in || len(wq.q) != 0 || wq.head != 0 {
		t.Fatalf("after draining: %d in, %d out, len %d, head %d", in, out, len(wq.q), wq.head)
	}
}
