module podrun.dev/service-proxy

go 1.19
