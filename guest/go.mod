module glovebox.dev/guest

go 1.26.8

require (
	glovebox.dev/proto v0.0.0
	google.golang.org/grpc v1.85.0
)

require (
	github.com/gen2brain/shm v0.1.0 // indirect
	github.com/godbus/dbus/v5 v5.1.0 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/jezek/xgb v1.1.1 // indirect
	github.com/kbinani/screenshot v0.0.0-20250624051815-089614a94018 // indirect
	github.com/klauspost/compress v1.20.4 // indirect
	github.com/lxn/win v0.0.0-20210218163916-a377121e959e // indirect
	go.uber.org/goleak v1.3.0 // indirect
	golang.org/x/net v0.60.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/text v0.42.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20261110000943-09e21b237f2c // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)

replace glovebox.dev/proto => ../proto

replace glovebox.dev/shared => ../shared
