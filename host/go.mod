module glovebox.dev/host

go 1.26.8

require (
	glovebox.dev/proto v0.0.0
	glovebox.dev/shared v0.0.0
)

replace glovebox.dev/proto => ../proto

replace glovebox.dev/shared => ../shared
