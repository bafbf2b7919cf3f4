// The progress bar of long runs, drawn on a terminal only.

package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// errOut is where diagnostics and the progress bar go.
var errOut io.Writer = os.Stderr

// progressDelay is how long a run goes before its progress bar appears:
// short runs print nothing.
const progressDelay = time.Second

// progress draws a progress bar on a terminal, redrawn a few times a
// second from its own goroutine once the run has taken progressDelay. A
// nil progress (not a terminal) does nothing.
type progress struct {
	w     io.Writer
	label string
	total int64
	start time.Time
	stop  chan struct{}
	wg    sync.WaitGroup

	mu    sync.Mutex // guards done and shown
	done  int64
	shown bool
}

// newProgress returns a progress bar for a run of total units, or nil when
// errOut is not a terminal (a pipe, a file, a test).
func newProgress(label string, total int64) *progress {
	if total < 1 || !isTerminal(errOut) {
		return nil
	}
	p := &progress{w: errOut, label: label, total: total, start: time.Now(), stop: make(chan struct{})}
	p.wg.Add(1)
	go p.loop()
	return p
}

// isTerminal reports whether w is a terminal: a character device other than
// /dev/null, without TERM=dumb.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("TERM") == "dumb" {
		return false
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	if null, err := os.Stat(os.DevNull); err == nil && os.SameFile(fi, null) {
		return false
	}
	return true
}

// Set records that done units of the total are finished.
func (p *progress) Set(done int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.done = min(done, p.total)
	p.mu.Unlock()
}

// Add records n more units finished.
func (p *progress) Add(n int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.done = min(p.done+n, p.total)
	p.mu.Unlock()
}

func (p *progress) loop() {
	defer p.wg.Done()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-tick.C:
			if time.Since(p.start) >= progressDelay {
				p.draw()
			}
		}
	}
}

const progressWidth = 30

func (p *progress) draw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := int(p.done * progressWidth / p.total)
	fmt.Fprintf(p.w, "\r%s [%s%s] %d/%d %v ", p.label, strings.Repeat("#", n), strings.Repeat(".", progressWidth-n),
		p.done, p.total, time.Since(p.start).Round(time.Second))
	p.shown = true
}

// Finish stops the bar and erases it.
func (p *progress) Finish() {
	if p == nil {
		return
	}
	close(p.stop)
	p.wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
