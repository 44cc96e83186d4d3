// Command image builds contractbot's OCI image from a checkout, with no container
// engine and no base image (docs/operations.md, "The image"):
//
//	cd deploy && go run ./cmd/image -o ../build/image -tar ../build/contractbot.tar
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/contractbot/contractbot/deploy/image"
)

func main() {
	out := flag.String("o", "../build/image", "write the OCI image layout to this folder")
	tarPath := flag.String("tar", "", "also write a tarball that `docker load` takes")
	ref := flag.String("ref", "contractbot:dev", "the image's name in the layout and the tarball")
	src := flag.String("src", "..", "the contractbot checkout to build")
	arch := flag.String("arch", "", "GOARCH of the image (default: this machine's)")
	certs := flag.String("ca-certs", "", "PEM bundle of CA certificates (default: /etc/ssl/certs/ca-certificates.crt)")
	flag.Parse()
	img, err := image.Build(image.Options{Source: *src, Arch: *arch, CACerts: *certs})
	if err == nil {
		err = image.Write(img, *out, *tarPath, *ref)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
	d, _ := img.Digest()
	fmt.Printf("wrote %s to %s (%s)\n", *ref, *out, d)
}
