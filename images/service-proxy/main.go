// service-proxy gives one podrun Service its address: it runs in a container of its own on the
// cluster network, answers on the Service's ports and relays each connection (TCP) or flow (UDP)
// to one of the Service's endpoints, the ready pods' IPs. podrun writes the ports and endpoints
// to <config-dir>/service.json (config.go describes the file) and rewrites it as pods come and
// go; the proxy notices within a poll interval and follows it without dropping what it relays.
//
// It does in user space what kube-proxy does with kernel rules on a node
// (https://github.com/kubernetes/kubernetes/tree/master/pkg/proxy): podrun must not touch the
// host's firewall, and a container it makes and removes leaves the host as it found it.
//
// Once it has applied a config it writes the config's hash to <status-dir>/applied, when podrun
// mounted that directory (watch.go), so that podrun can wait until the proxy follows its file.
//
// Usage: service-proxy [-config-dir /podrun/service] [-status-dir /podrun/status] [-v]
//
//	service-proxy -relay | -dial HOST:PORT   (dial.go: podrun's way to a pod through the engine)
package main

import (
	"flag"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

func main() {
	// podrun's relay (dial.go): -relay to idle, -dial HOST:PORT for one connection over stdio.
	dialMode(os.Args)
	// podrun's files on an engine that cannot see this host's disk (files.go).
	filesMode(os.Args)
	configDir := flag.String("config-dir", "/podrun/service", "directory holding "+configFile)
	statusDir := flag.String("status-dir", "/podrun/status", "writable directory for "+appliedFile+" (skipped when absent)")
	verbose := flag.Bool("v", false, "log every connection and UDP session")
	flag.Parse()

	logger := log.New(os.Stderr, "service-proxy: ", 0)
	proxy := newProxy("0.0.0.0", logger)
	proxy.verbose = *verbose

	// The proxy holds no state worth a graceful stop: exit at once, so that a pod's or a
	// Service's grace period never waits on it.
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-term
		os.Exit(0)
	}()

	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	w := &watcher{path: filepath.Join(*configDir, configFile), proxy: proxy}
	// An older podrun mounts no status directory (and the root is read-only): nothing is reported.
	if info, err := os.Stat(*statusDir); err == nil && info.IsDir() {
		w.statusDir = *statusDir
	}
	w.run(200*time.Millisecond, hup, nil)
}
