package config

import "testing"

// TestConnect connects to the test database as root (password 51Yn0NPt5D).
func TestConnect(t *testing.T) {
	if err := Connect("mysql://root:51Yn0NPt5D@localhost:3306/billing_test"); err != nil {
		t.Fatal(err)
	}
	if id, _ := Cloud(); id == "" {
		t.Fatal("no cloud credentials")
	}
}
