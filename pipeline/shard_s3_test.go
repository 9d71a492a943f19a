//go:build s3

package pipeline

import (
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"

	_ "github.com/npyflow/npyflow/objstore" // s3://
)

// TestShardsToS3 runs checkShardsToStore (a frozen 4-shard plan, its
// state and its partitioned dataset in a bucket) on a running
// S3-compatible server with anonymous access and bucket "npyflow":
//
//	eval $(scripts/seaweedfs.sh start /tmp/weed)
//	NPYFLOW_S3_ENDPOINT=... go test -tags s3 -run S3 ./pipeline/
//
// The build tag keeps the S3 SDK out of the ordinary pipeline tests.
func TestShardsToS3(t *testing.T) {
	ep := os.Getenv("NPYFLOW_S3_ENDPOINT")
	if ep == "" {
		t.Fatal("no S3 server: set NPYFLOW_S3_ENDPOINT (make test-s3 does)")
	}
	for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": "npyflow", "AWS_SECRET_ACCESS_KEY": "npyflow-test",
		"AWS_EC2_METADATA_DISABLED": "true", "AWS_REGION": "us-east-1"} {
		if os.Getenv(k) == "" {
			t.Setenv(k, v)
		}
	}
	base := fmt.Sprintf("s3://npyflow/pipeline-shards-%d?endpoint=%s&region=us-east-1&disable_https=true",
		time.Now().UnixNano(), url.QueryEscape(ep))
	checkShardsToStore(t, base)
}
