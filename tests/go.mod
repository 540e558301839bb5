module glovebox.dev/tests

go 1.26.8

require (
	github.com/google/go-cmp v0.7.0
	glovebox.dev/proto v0.0.0
	glovebox.dev/shared v0.0.0
	google.golang.org/grpc v1.85.0
)

require (
	github.com/jezek/xgb v1.1.1 // indirect
	golang.org/x/net v0.62.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.43.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20261110000943-09e21b237f2c // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)

replace glovebox.dev/proto => ../proto

replace glovebox.dev/shared => ../shared
