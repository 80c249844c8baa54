module podrun.dev/test-udp-responder

go 1.19
