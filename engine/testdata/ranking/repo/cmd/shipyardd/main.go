// Command shipyardd serves the order fulfilment API.
package main

import (
	"flag"
	"log"
	"net/http"

	"example.com/shipyard/internal/config"
	"example.com/shipyard/internal/webhook"
)

func main() {
	path := flag.String("config", "shipyard.conf", "settings file")
	flag.Parse()
	cfg, err := config.Load(*path)
	if err != nil {
		log.Fatal(err)
	}
	v := webhook.Verifier{Secret: []byte(cfg.WebhookSecret)}
	_ = v
	log.Fatal(http.ListenAndServe(cfg.Listen, nil))
}
