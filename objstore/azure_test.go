package objstore_test

// Integration tests against Azurite, Azure Storage's emulator (npm
// package azurite): the behaviour, convert and job-sink tests of S3 on
// azblob://. They run when NPYFLOW_AZURITE names azurite-blob (make
// test-s3 sets it to /tmp/azurite/node_modules/.bin/azurite-blob unless
// set; install with `npm install --prefix /tmp/azurite azurite`): the
// test starts it on a free port, and skips with a log line when it is
// not there.

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
)

// Azurite's development account: its name and key are public constants
// of the emulator (documented by Microsoft), not secrets.
const (
	azAccount   = "devstoreaccount1"
	azKey       = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
	azContainer = "npyflow"
)

var (
	azOnce sync.Once
	azHost string // 127.0.0.1:port
	azErr  error
)

// azRoot returns the azblob:// URL of a fresh prefix on Azurite, starting
// it first, or skips the test.
func azRoot(t *testing.T, prefix string) string {
	t.Helper()
	bin := os.Getenv("NPYFLOW_AZURITE")
	if bin == "" {
		t.Skip("no Azurite: set NPYFLOW_AZURITE to azurite-blob (make test-s3)")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("no Azurite (%s): npm install --prefix /tmp/azurite azurite, or set NPYFLOW_AZURITE", bin)
	}
	t.Setenv("AZURE_STORAGE_ACCOUNT", azAccount)
	t.Setenv("AZURE_STORAGE_KEY", azKey)
	azOnce.Do(func() { azHost, azErr = startAzurite(t, bin) })
	if azErr != nil {
		t.Fatal(azErr)
	}
	return fmt.Sprintf("azblob://%s/%s-%d?protocol=http&domain=%s&localemu=true", azContainer, prefix, time.Now().UnixNano(), azHost)
}

func startAzurite(t *testing.T, bin string) (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	dir, err := os.MkdirTemp("", "npyflow-azurite-")
	if err != nil {
		return "", err
	}
	cmd := exec.Command(bin, "--blobHost", "127.0.0.1", "--blobPort", fmt.Sprint(port), "--location", dir,
		"--skipApiVersionCheck", "--loose", "--silent")
	log, err := os.Create(filepath.Join(dir, "azurite.log"))
	if err != nil {
		return "", err
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return "", err
	}
	stopAzurite = func() {
		cmd.Process.Kill()
		cmd.Wait()
		os.RemoveAll(dir)
	}
	host := fmt.Sprintf("127.0.0.1:%d", port)
	t.Logf("azurite-blob on %s (log %s)", host, log.Name())
	cred, err := azblob.NewSharedKeyCredential(azAccount, azKey)
	if err != nil {
		return "", err
	}
	c, err := azblob.NewClientWithSharedKeyCredential("http://"+host+"/"+azAccount, cred, nil)
	if err != nil {
		return "", err
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := c.CreateContainer(ctx, azContainer, nil)
		cancel()
		if err == nil {
			return host, nil
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("creating container on Azurite at %s: %w", host, err)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

func TestAzureBehaviour(t *testing.T) { testBehaviour(t, azRoot(t, "behaviour")) }
func TestAzureConvert(t *testing.T)   { testConvert(t, azRoot(t, "convert")) }
func TestAzureGlobJob(t *testing.T)   { testGlobJob(t, azRoot(t, "glob")) }
func TestAzureJobSink(t *testing.T)   { testJobSink(t, azRoot(t, "jobsink"), 1<<19, 0, nil) }
func TestAzureJobSinkInterrupted(t *testing.T) {
	testJobSinkInterrupted(t, azRoot(t, "jobsink"), 1<<19, nil)
}
func TestAzureProjection(t *testing.T) { testProjection(t, azRoot(t, "projection")) }
