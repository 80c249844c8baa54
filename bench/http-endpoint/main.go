// The endpoint of bench/service-proxy.ts: an HTTP server on :8080 that answers every request with
// "ok\n" and keeps connections alive (busybox httpd closes each one, so it cannot measure the
// keep-alive case). Standard library only; the bench builds it with the local Go toolchain.
package main

import (
	"log"
	"net/http"
)

func main() {
	body := []byte("ok\n")
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { w.Write(body) })
	log.Fatal(http.ListenAndServe(":8080", nil))
}
