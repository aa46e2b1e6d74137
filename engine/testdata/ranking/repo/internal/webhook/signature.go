// Package webhook receives event notifications from payment providers.
package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
)

// ErrBadSignature is returned when a delivery's signature does not verify.
var ErrBadSignature = errors.New("webhook signature mismatch")

// ErrStale is returned for deliveries older than the tolerance.
var ErrStale = errors.New("webhook timestamp outside tolerance")

// Verifier checks the Shipyard-Signature header of incoming deliveries:
// "t=<unix seconds>,v1=<hex hmac-sha256 of t.body>".
type Verifier struct {
	Secret    []byte
	Tolerance time.Duration
	Now       func() time.Time
}

// Verify returns nil when header signs body with the shared secret and the
// timestamp is recent.
func (v Verifier) Verify(header string, body []byte) error {
	var ts, sig string
	for _, part := range strings.Split(header, ",") {
		k, val, _ := strings.Cut(part, "=")
		switch k {
		case "t":
			ts = val
		case "v1":
			sig = val
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return ErrBadSignature
	}
	if d := v.Now().Sub(time.Unix(sec, 0)); d > v.Tolerance || d < -v.Tolerance {
		return ErrStale
	}
	mac := hmac.New(sha256.New, v.Secret)
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	want := hex.EncodeToString(mac.Sum(nil))
	if !hmac.Equal([]byte(want), []byte(sig)) {
		return ErrBadSignature
	}
	return nil
}
