package nexmark

import (
	"errors"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("DefaultConfig: %v", err)
	}
	for _, tc := range []struct {
		name   string
		change func(*Config)
		want   string
	}{
		{"zero rate", func(c *Config) { c.FirstEventRate = 0 }, "FirstEventRate"},
		{"rate above 1e6", func(c *Config) { c.FirstEventRate = 2_000_000 }, "FirstEventRate"},
		{"negative events", func(c *Config) { c.NumEvents = -1 }, "NumEvents"},
		{"no bids", func(c *Config) { c.BidProportion = 0 }, "proportions"},
		{"no active people", func(c *Config) { c.NumActivePeople = 0 }, "NumActivePeople"},
		{"no in-flight auctions", func(c *Config) { c.InFlightAuctions = 0 }, "InFlightAuctions"},
		{"zero hot ratio", func(c *Config) { c.HotBiddersRatio = 0 }, "hot ratios"},
		{"hot ratio above 2^30", func(c *Config) { c.HotAuctionRatio = 1<<30 + 1 }, "hot ratios"},
		{"active people above 2^30", func(c *Config) { c.NumActivePeople = 1<<30 + 1 }, "NumActivePeople"},
		{"in-flight auctions above 2^30", func(c *Config) { c.InFlightAuctions = 1<<30 + 1 }, "InFlightAuctions"},
		{"negative size", func(c *Config) { c.AvgBidByteSize = -1 }, "byte sizes"},
		{"negative base time", func(c *Config) { c.BaseTime = -1 }, "BaseTime"},
		{"negative first ID", func(c *Config) { c.FirstAuctionID = -1 }, "first IDs"},
		{"no categories", func(c *Config) { c.NumCategories = 0 }, "NumCategories"},
		{"zero group", func(c *Config) { c.OutOfOrderGroupSize = 0 }, "OutOfOrderGroupSize"},
		{"group of 953", func(c *Config) { c.OutOfOrderGroupSize = 1906 }, "multiple of 953"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			tc.change(&c)
			err := c.Validate()
			if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate() = %v, want ErrInvalidConfig mentioning %q", err, tc.want)
			}
			if _, err := TryNewGenerator(c); !errors.Is(err, ErrInvalidConfig) {
				t.Fatalf("TryNewGenerator accepted it: %v", err)
			}
		})
	}
}

func TestNewGeneratorPanicsOnInvalidConfig(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	NewGenerator(Config{})
}

func TestSplitPanicsOnBadIndex(t *testing.T) {
	for _, args := range [][2]int{{0, 0}, {-1, 2}, {2, 2}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Split(%d, %d) did not panic", args[0], args[1])
				}
			}()
			NewGenerator(DefaultConfig()).Split(args[0], args[1])
		}()
	}
}
