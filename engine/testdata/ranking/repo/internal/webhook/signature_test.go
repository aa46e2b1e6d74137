package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"testing"
	"time"
)

func TestVerifyAcceptsFreshSignature(t *testing.T) {
	now := time.Unix(1700000000, 0)
	mac := hmac.New(sha256.New, []byte("s"))
	mac.Write([]byte("1700000000.{}"))
	h := "t=1700000000,v1=" + hex.EncodeToString(mac.Sum(nil))
	v := Verifier{Secret: []byte("s"), Tolerance: time.Minute, Now: func() time.Time { return now }}
	if err := v.Verify(h, []byte("{}")); err != nil {
		t.Fatal(err)
	}
	v.Now = func() time.Time { return now.Add(time.Hour) }
	if err := v.Verify(h, []byte("{}")); err != ErrStale {
		t.Fatalf("stale delivery: %v", err)
	}
}
