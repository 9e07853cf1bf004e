package nexmark

// Each constructor below builds the entity for adjusted event number m at
// event time ts, drawing from r. Every string is a slice of shared text
// (text.go), so no constructor allocates.

func (c Config) newPerson(m, ts int64, r *rng) Person {
	name := fullNames[r.intn(int64(len(fullNames)))]
	email := pooledEmail(r)
	card := pooledCreditCard(r)
	city := usCities[r.intn(int64(len(usCities)))]
	state := usStates[r.intn(int64(len(usStates)))]

	size := 8 + len(name) + len(email) + len(card) + len(city) + len(state)
	pad := extra(r, size, c.AvgPersonByteSize)

	return Person{
		ID:           c.lastPerson(m) + c.FirstPersonID,
		Name:         name,
		EmailAddress: email,
		CreditCard:   card,
		City:         city,
		State:        state,
		DateTime:     ts,
		Extra:        pad,
	}
}

func (c Config) newAuction(m, ts int64, r *rng) Auction {
	var seller int64
	if r.intn(int64(c.HotSellersRatio)) > 0 {
		seller = c.hotSeller(m)
	} else {
		seller = c.randomPerson(m, r)
	}
	category := c.FirstCategoryID + r.intn(int64(c.NumCategories))
	initialBid := r.price()
	expires := ts + c.auctionLengthMs(m, ts, r)

	name := pooledWord(r, 20)
	desc := pooledWord(r, 100)
	reserve := initialBid + r.price()

	size := 8 + len(name) + len(desc) + 8 + 8 + 8 + 8 + 8
	pad := extra(r, size, c.AvgAuctionByteSize)

	return Auction{
		ID:          c.lastAuction(m) + c.FirstAuctionID,
		ItemName:    name,
		Description: desc,
		InitialBid:  initialBid,
		Reserve:     reserve,
		DateTime:    ts,
		Expires:     expires,
		Seller:      seller + c.FirstPersonID,
		Category:    category,
		Extra:       pad,
	}
}

func (c Config) newBid(m, ts int64, r *rng) Bid {
	var auction, bidder int64
	if r.intn(int64(c.HotAuctionRatio)) > 0 {
		auction = c.hotAuction(m)
	} else {
		auction = c.randomAuction(m, r)
	}
	if r.intn(int64(c.HotBiddersRatio)) > 0 {
		bidder = c.hotBidder(m)
	} else {
		bidder = c.randomPerson(m, r)
	}
	price := r.price()

	table := channelTable()
	var ch channel
	if r.intn(hotChannelsRatio) > 0 {
		ch = table[r.intn(int64(len(hotChannels)))]
	} else {
		ch = table[int64(len(hotChannels))+r.intn(numChannels)]
	}

	// The reference counts only the four numbers towards a bid's size.
	pad := extra(r, 8+8+8+8, c.AvgBidByteSize)
	return Bid{
		Auction:  auction + c.FirstAuctionID,
		Bidder:   bidder + c.FirstPersonID,
		Price:    price,
		Channel:  ch.name,
		URL:      ch.url,
		DateTime: ts,
		Extra:    pad,
	}
}
