// Package wine runs mcptray's Windows programs, the ones `make windows`
// builds and the installer installs, under Wine, end to end, driven from
// Linux: the server, the stdio shim, the starter tools and the gallery's
// offline examples, the AI clients' entries as the clients start them, the
// console, the secret store, the instance lock, the job object, the
// installer and the desktop app under Xvfb.
//
// It runs only when MCPTRAY_WINE_DIST names the folder of the Windows
// programs (make wine sets it, and MCPTRAY_WINE_SETUP, the installer);
// otherwise its tests skip. Each run makes a throwaway Wine prefix whose
// user is "Jane Doe" (a space in every path under the user's folder), with
// a bcryptprimitives.dll of its own (testdata/processprng.c): Wine 8's lacks
// ProcessPrng, which Go programs call at start. Go's os.RemoveAll fails
// inside Wine 8, so nothing here runs Go's tests inside Wine: every check
// is a run of the real programs, cleaned up from the Linux side.
package wine
