// Package pgtest starts private PostgreSQL servers for tests.
//
// Each Server is a real postgres process of its own: initdb'd into a fresh
// directory, listening on a free port of 127.0.0.1 (and on a Unix socket in
// that directory), with trust authentication for the user postgres and
// max_prepared_transactions=64 for two-phase commit. Tests never share a
// server with anything outside the test binary, and never need a
// system-wide server.
//
// Use Start in a test (the server is removed when the test ends) or New in
// a TestMain to share one server across a package's tests (call Close
// before os.Exit). Stop, Start and Kill on a Server simulate the database
// going away and coming back with its data kept: a clean or immediate
// shutdown, or SIGKILL of every server process, as a crashed machine would.
// (Stop(Smart) waits for clients to disconnect: close connections first.)
//
// PostgreSQL must be installed (Debian's postgresql-15, found under
// /usr/lib/postgresql, or the directory named by WEIR_PGBIN). When it is
// not, New returns an error that says to run scripts/test.sh, which installs
// it, and Start fails the test: a database test that silently skips would
// hide that it never ran.
//
// Speed. The first server builds a template data directory with initdb
// (about 0.5 s on a tmpfs, 3 to 8 s on this project's machines' disk);
// later servers, in this and other test processes, copy it in tens of
// milliseconds, so a server is up in about 0.2 s, and a restart takes
// about 0.12 s. Data directories and the template live on /dev/shm when it
// exists: a tmpfs keeps what a killed server wrote, which is all the crash
// tests need, and fsync stays on, as in production. The template (40 MB)
// stays there for the next run, named by a hash of the PostgreSQL
// version; Close removes a server's own directory.
//
// As root, initdb refuses to run, so the server processes run as the
// postgres user (runuser -u postgres) and the directories are handed to
// it. A test binary that dies without cleaning up (a timeout, ^C) leaves
// its servers behind; the next New stops and removes every server whose
// owning process is gone.
package pgtest
