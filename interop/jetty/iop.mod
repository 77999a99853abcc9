# Jetty 9.4 module for the shb interop suite, in the suite's private
# jetty.base (modules/iop.mod): the HTTP/2 and ALPN jars of jetty.home,
# the compiled IopJetty class, and iop.xml, which adds the connectors and
# the handler to the distribution's server (module "server", jetty.xml).
[description]
shb interop suite: HTTP/1.1, h2c and h2 connectors and the suite's endpoints

[depend]
server

[lib]
lib/http2/*.jar
lib/jetty-alpn-server-${jetty.version}.jar
lib/jetty-alpn-java-server-${jetty.version}.jar
lib/iop/

[xml]
etc/iop.xml
