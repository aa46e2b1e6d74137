module example.com/kv

go 1.22
