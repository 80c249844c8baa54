package main

import (
	"fmt"
	"io"
	"os"
	"syscall"
	"time"
)

// configFile is the file name podrun writes in the config directory.
const configFile = "service.json"

// watcher reloads the config when the file at path changes. podrun replaces the file by an
// atomic rename into a bind-mounted directory, so the file is opened by path at each reload: an
// inode held open would keep the old content for ever. It polls (a stat every interval) rather
// than use inotify, because an inotify watch on a bind-mounted directory does not see a rename
// made on the host in every setup (rootless podman, a VM's shared folder), and a stat is cheap.
type watcher struct {
	path  string
	proxy *Proxy

	last    fileStamp
	seen    bool // last is set
	missing bool // the file was absent at the last look (logged once)
}

// fileStamp changes when the file is rewritten in place (mtime, size) or replaced (inode).
type fileStamp struct {
	dev, ino uint64
	size     int64
	mtime    int64
}

func stampOf(info os.FileInfo) fileStamp {
	st := info.Sys().(*syscall.Stat_t)
	return fileStamp{dev: uint64(st.Dev), ino: st.Ino, size: info.Size(), mtime: info.ModTime().UnixNano()}
}

// check reloads when the file changed since the last look, or always when force is set (SIGHUP).
func (w *watcher) check(force bool) {
	info, err := os.Stat(w.path)
	if err != nil {
		if !w.missing {
			w.missing = true
			w.proxy.logger.Printf("waiting for %s: %v", w.path, err)
		}
		return
	}
	w.missing = false
	if !force && w.seen && stampOf(info) == w.last {
		return
	}
	cfg, stamp, err := readConfig(w.path)
	if err != nil {
		if !w.seen || stamp != w.last {
			w.proxy.logger.Printf("%s: %v; keeping the last good config", w.path, err)
		}
		if stamp != (fileStamp{}) {
			w.last, w.seen = stamp, true
		}
		return
	}
	w.last, w.seen = stamp, true
	w.proxy.logger.Printf("loaded %s: %s", w.path, summary(cfg))
	w.proxy.Apply(cfg)
}

// readConfig reads and parses the file, with the stamp of the very file it read (fstat of the
// open file: a rename between a stat and the open cannot pair old stamp and new content).
func readConfig(path string) (*Config, fileStamp, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fileStamp{}, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fileStamp{}, err
	}
	stamp := stampOf(info)
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, stamp, err
	}
	cfg, err := parseConfig(data)
	return cfg, stamp, err
}

// run checks every interval, and at once on each value of hup, until stop is closed.
func (w *watcher) run(interval time.Duration, hup <-chan os.Signal, stop <-chan struct{}) {
	w.check(false)
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		select {
		case <-stop:
			return
		case <-ticker.C:
			w.check(false)
			w.proxy.Retry()
		case <-hup:
			w.check(true)
		}
	}
}

// summary is the reload's log line: the Service and its ports with their endpoint counts.
func summary(c *Config) string {
	s := c.Service
	if c.affinity() > 0 {
		s += fmt.Sprintf(", ClientIP affinity %v", c.affinity())
	}
	for _, p := range c.Ports {
		s += fmt.Sprintf(", %s %d: %d endpoints", p.Protocol, p.Port, len(p.Endpoints))
	}
	if len(c.Ports) == 0 {
		s += ", no ports"
	}
	return s
}
