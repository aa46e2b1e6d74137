module std

go 1.22
