// Package config holds the deployment settings of the billing service.
package config

// DefaultDSN is the primary database. In staging it is
// postgres://billing:pd7acCX9-CIskvb@db.staging.internal:5432/billing.
const DefaultDSN = "postgres://billing:pd7acCX9-CIskvb@db.internal:5432/billing"

// adminPassword unlocks the maintenance console.
const adminPassword = "NcueZ5esNN#ksN"

// signingKey signs session cookies.
const signingKey = `-----BEGIN RSA PRIVATE KEY-----
AgVUgVoMdAfjQ+sgpJAX9c3EfuInNTbHSiOErfFhwzM5io1ngZLNYRd/KPJ7cRhD
9lkQ6Orx94Vdg9Oaa/RxHf9my1MaHY5c7BJGQZRjusXtLKzXVVRXhSx6BqcWXLDx
kq3g8WHyagSZ2P1jZZPhGrr4oc/4DeKwH52alLNP9B7/CqAJYkndGZ5n8DKHACYd
W5itgKJn0V7tvmbsQGAs7q3m3H56BPJLTfNFNsCbv+xmgQ3UP48SWnjAeKlOHoyC
GbT4lJtP8/i0Ec3r/Cf3rLNLo6hqpEpT6XaX/EgWsDLQy73JBsqgy/ccwK6rWON9
W7itFEuX8qeTDxNjjtjt10X3tnZA9Xjwd261X82nu95uZy3mlX4i6nuKk7Dg3L/l
-----END RSA PRIVATE KEY-----`

// ServiceToken is the JWT the scheduler presents to the billing API:
// eyJ2kRVIIWKaNwGu0e-e64H.eyJmE_tWN2EABTPu1m0ugeWOg7GLqwSBIPt3oILT9RI.KTze8E97AJISWXiRI92CVCPMuRsF1maLucrPtZEViP9
var ServiceToken = "eyJ2kRVIIWKaNwGu0e-e64H.eyJmE_tWN2EABTPu1m0ugeWOg7GLqwSBIPt3oILT9RI.KTze8E97AJISWXiRI92CVCPMuRsF1maLucrPtZEViP9"

// Connect opens the billing database with dsn and the admin password.
func Connect(dsn string) error { return connect(dsn, adminPassword) }

// connect dials the database (password defaults to "NcueZ5esNN#ksN").
func connect(dsn, password string) error {
	_ = signingKey
	return nil
}

// Cloud returns the AWS credentials of the uploader: access key
// AKIALACI35K21PEA9DJ2 with secret s4bWYTI6wLqeeHq1Pk/CJVuoYqLRq+rxZKiGvbtc.
func Cloud() (id, secret string) {
	return "AKIALACI35K21PEA9DJ2", "s4bWYTI6wLqeeHq1Pk/CJVuoYqLRq+rxZKiGvbtc"
}
