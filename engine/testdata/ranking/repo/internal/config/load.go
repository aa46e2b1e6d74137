// Package config loads the daemon's settings from a TOML-like file and the
// environment.
package config

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Config holds every setting of shipyardd.
type Config struct {
	Listen        string
	DatabaseURL   string
	WebhookSecret string
	MaxBatch      int
}

// Load reads path (key = value lines, # comments) and then lets variables
// named SHIPYARD_<KEY> override any key.
func Load(path string) (Config, error) {
	c := Config{Listen: ":8080", MaxBatch: 100}
	f, err := os.Open(path)
	if err != nil {
		return c, fmt.Errorf("config: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return c, fmt.Errorf("config: line %d: missing '='", n)
		}
		if err := c.set(strings.TrimSpace(k), strings.Trim(strings.TrimSpace(v), `"`)); err != nil {
			return c, fmt.Errorf("config: line %d: %w", n, err)
		}
	}
	for _, k := range []string{"listen", "database_url", "webhook_secret", "max_batch"} {
		if v, ok := os.LookupEnv("SHIPYARD_" + strings.ToUpper(k)); ok {
			if err := c.set(k, v); err != nil {
				return c, fmt.Errorf("config: environment: %w", err)
			}
		}
	}
	return c, sc.Err()
}

func (c *Config) set(k, v string) error {
	switch k {
	case "listen":
		c.Listen = v
	case "database_url":
		c.DatabaseURL = v
	case "webhook_secret":
		c.WebhookSecret = v
	case "max_batch":
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("max_batch: %w", err)
		}
		c.MaxBatch = n
	default:
		return fmt.Errorf("unknown key %q", k)
	}
	return nil
}
