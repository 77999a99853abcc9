# shellcheck shell=bash disable=SC2034 # the variables are read by run.sh
# Jetty 9.4 (Debian's jetty9), run by the distribution's own launcher
# (java -jar start.jar) in the foreground from a private jetty.base in the
# run's directory: one module of the suite's (iop.mod, iop.xml) that adds
# the connectors and a handler (IopJetty.java, compiled here at run time
# against the jars Debian installs) to the stock server. HTTP/1.1 and
# h2c on one cleartext port, HTTP/1.1 and h2 over TLS (ALPN built into
# Java 17) on another, and two more pairs for the HTTP/2 cases (4
# concurrent streams; a 1 KB initial stream window). /close sets
# "Connection: close" on HTTP/1.1 and ends the HTTP/2 session with GOAWAY
# after the response; h2:goaway does so on every 5th request of a
# connection. No /bigheaders on HTTP/2 (interop/README.md). Sourced by
# interop/run.sh.

jetty_packages="jetty9 default-jdk-headless"
jetty_protos="h1 h1s h2c h2"
jetty_home=/usr/share/jetty9

jetty_bin() {
	[[ -f $jetty_home/start.jar ]] || return 1
	command -v javac >/dev/null || return 1
	command -v java
}

# jetty_classpath: the jars IopJetty.java is compiled against.
jetty_classpath() {
	local j cp="" v
	v=$(basename "$(ls "$jetty_home"/lib/jetty-server-*.jar)" .jar)
	v=${v#jetty-server-}
	for j in jetty-server jetty-util jetty-http jetty-io jetty-alpn-server; do
		cp+="$jetty_home/lib/$j-$v.jar:"
	done
	for j in "$jetty_home"/lib/http2/*.jar; do
		cp+="$j:"
	done
	echo "$cp$jetty_home/lib/servlet-api-3.1.jar"
}

# jetty_build: IopJetty.class, compiled once per run into $IOP_TMP/jetty.
jetty_build() {
	local out=$IOP_TMP/jetty/classes
	[[ -f $out/IopJetty.class ]] && return 0
	mkdir -p "$out"
	javac -nowarn -d "$out" -cp "$(jetty_classpath)" "$IOP_HOME/jetty/IopJetty.java" \
		>"$IOP_TMP/jetty/build.log" 2>&1
}

jetty_start() {
	local dir=$1 base=$1/base plain tls sp st wp wt ep
	IOP_SERVER_LOGS="$IOP_TMP/jetty/build.log"
	mkdir -p "$IOP_TMP/jetty"
	jetty_build || return 1
	iop_pick_port plain && iop_pick_port tls && iop_pick_port sp && iop_pick_port st &&
		iop_pick_port wp && iop_pick_port wt || return 1
	mkdir -p "$base/modules" "$base/etc" "$base/lib" || return 1
	cp "$IOP_HOME/jetty/iop.mod" "$base/modules/" && cp "$IOP_HOME/jetty/iop.xml" "$base/etc/" &&
		cp -r "$IOP_TMP/jetty/classes" "$base/lib/iop" || return 1
	# Java's TLS wants a key store: the suite's certificate and key in
	# PKCS#12.
	openssl pkcs12 -export -in "$IOP_CERT" -inkey "$IOP_KEY" -name interop \
		-passout pass:interop -out "$dir/keystore.p12" >"$dir/keystore.log" 2>&1 || return 1
	iop_big_headers 'X-Big-%02d: %s' >"$dir/bigheaders.txt"
	cat >"$dir/iop.properties" <<-EOT
		docroot=$IOP_DOCROOT
		headers=$dir/bigheaders.txt
		keystore=$dir/keystore.p12
		keystore.password=interop
		plain=$plain
		tls=$tls
		streams.plain=$sp
		streams.tls=$st
		window.plain=$wp
		window.tls=$wt
	EOT
	printf -- '--module=iop\niop.properties=%s\n' "$dir/iop.properties" >"$base/start.ini"
	iop_spawn "$dir/server.log" java -jar "$jetty_home/start.jar" \
		"jetty.home=$jetty_home" "jetty.base=$base"
	IOP_SERVER_LOGS="$dir/server.log"
	iop_wait_ready "$IOP_LAST_PID" 60 "tcp:$plain" "tcp:$tls" "tcp:$sp" "tcp:$st" \
		"tcp:$wp" "tcp:$wt" || return 1

	for ep in / /1m /bigheaders /close /echo; do
		iop_url h1 "$ep" "http://127.0.0.1:$plain$ep"
		iop_url h1s "$ep" "https://127.0.0.1:$tls$ep"
		[[ $ep == /bigheaders ]] && continue
		iop_url h2c "$ep" "http://127.0.0.1:$plain$ep"
		iop_url h2 "$ep" "https://127.0.0.1:$tls$ep"
	done
	iop_na h2c /bigheaders "Jetty 9.4 HPACK-encodes a header block into one buffer of the client's SETTINGS_MAX_FRAME_SIZE (16 KB by default) and fails beyond it"
	iop_na h2 /bigheaders "Jetty 9.4 HPACK-encodes a header block into one buffer of the client's SETTINGS_MAX_FRAME_SIZE (16 KB by default) and fails beyond it"
	iop_url h2c h2:streams "http://127.0.0.1:$sp/"
	iop_url h2 h2:streams "https://127.0.0.1:$st/"
	iop_url h2c h2:window "http://127.0.0.1:$wp/echo"
	iop_url h2 h2:window "https://127.0.0.1:$wt/echo"
	iop_url h2c h2:goaway "http://127.0.0.1:$plain/goaway"
	iop_url h2 h2:goaway "https://127.0.0.1:$tls/goaway"
}
