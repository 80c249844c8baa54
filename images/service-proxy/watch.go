package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// configFile is the file name podrun writes in the config directory.
const configFile = "service.json"

// appliedFile is the file the proxy writes in its status directory once it has applied a config:
// the SHA-256 of the config file's bytes, in hex, and a newline. podrun compares it with the hash
// of the text it wrote last, so that `up` returns only once the Service relays to its newest pods.
const appliedFile = "applied"

// watcher reloads the config when the file at path changes. podrun replaces the file by an
// atomic rename into a bind-mounted directory, so the file is opened by path at each reload: an
// inode held open would keep the old content for ever. It polls (a stat every interval) rather
// than use inotify, because an inotify watch on a bind-mounted directory does not see a rename
// made on the host in every setup (rootless podman, a VM's shared folder), and a stat is cheap.
type watcher struct {
	path  string
	proxy *Proxy
	// statusDir is where appliedFile is written; "" when podrun mounted none (an older podrun).
	statusDir string

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
	cfg, stamp, sum, err := readConfig(w.path)
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
	w.reportApplied(sum)
}

// reportApplied writes the hash of the config just applied to the status directory, by a rename
// (podrun never reads half a file). A failure is logged: podrun then waits its bound and warns.
func (w *watcher) reportApplied(sum string) {
	if w.statusDir == "" {
		return
	}
	if err := writeAtomic(filepath.Join(w.statusDir, appliedFile), []byte(sum+"\n")); err != nil {
		w.proxy.logger.Printf("reporting the applied config: %v", err)
	}
}

func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// Readable by podrun, whichever user the proxy runs as.
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// readConfig reads and parses the file, with the stamp of the very file it read (fstat of the
// open file: a rename between a stat and the open cannot pair old stamp and new content) and the
// SHA-256 of its bytes.
func readConfig(path string) (*Config, fileStamp, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fileStamp{}, "", err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fileStamp{}, "", err
	}
	stamp := stampOf(info)
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, stamp, "", err
	}
	sum := sha256.Sum256(data)
	cfg, err := parseConfig(data)
	return cfg, stamp, hex.EncodeToString(sum[:]), err
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
