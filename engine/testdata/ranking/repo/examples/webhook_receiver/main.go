// Command webhook_receiver shows how to verify Shipyard webhook signatures
// in your own service.
package main

import (
	"io"
	"log"
	"net/http"
	"time"

	"example.com/shipyard/internal/webhook"
)

func main() {
	v := webhook.Verifier{Secret: []byte("example-secret"), Tolerance: 5 * time.Minute, Now: time.Now}
	http.HandleFunc("/hook", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if err := v.Verify(r.Header.Get("Shipyard-Signature"), body); err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	log.Fatal(http.ListenAndServe(":9000", nil))
}
