/**
 * Lines recorded from the programs' own documentation, for the formats whose programs Debian does
 * not run here (the others are tested on what the real program wrote: real-programs.test.ts).
 */

/** Heroku Dev Center, "HTTP Routing" and "Heroku Error Codes" (H12). */
export const HEROKU_ROUTER = 'at=info method=GET path="/" host=myapp.herokuapp.com request_id=8601b555-6a83-4c12-8269-97c8e32cdb22 fwd="204.204.204.204" dyno=web.1 connect=1ms service=18ms status=200 bytes=13 protocol=https';
export const HEROKU_ROUTER_ERROR = 'at=error code=H12 desc="Request timeout" method=GET path="/" host=myapp.herokuapp.com request_id=8601b555-6a83-4c12-8269-97c8e32cdb22 fwd="204.204.204.204" dyno=web.1 connect=0ms service=30000ms status=503 bytes=0 protocol=https';
/** The same, as `heroku logs` prints it. */
export const HEROKU_CLI = `2026-11-28T10:00:00.123456+00:00 heroku[router]: ${HEROKU_ROUTER}`;

/** Rails Guides, "Debugging Rails Applications" (a request's lines in log/development.log). */
export const RAILS = [
  'Started GET "/articles" for 127.0.0.1 at 2019-12-04 21:02:31 +0000',
  'Processing by ArticlesController#index as HTML',
  'Completed 200 OK in 5ms (Views: 3.2ms | ActiveRecord: 0.5ms | Allocations: 1234)',
];
/** Production: Rails' default `log_tags = [:request_id]`, and Ruby Logger's own format. */
export const RAILS_TAGGED = '[7c4b8d5e-2f0a-4a8b-9c1d-3e5f6a7b8c9d] Completed 500 Internal Server Error in 12ms (ActiveRecord: 1.1ms (2 queries, 0 cached) | GC: 0.2ms)';
export const RAILS_RUBY_LOGGER = 'I, [2026-11-28T10:00:00.123456 #4242]  INFO -- : [7c4b8d5e-2f0a-4a8b-9c1d-3e5f6a7b8c9d] Started POST "/orders" for 203.0.113.9 at 2026-11-28 10:00:00 +0000';

/** Tomcat's catalina.out (java.util.logging's OneLineFormatter) with the trace Throwable.printStackTrace writes. */
export const TOMCAT_TRACE = [
  '28-Nov-2026 10:00:00.123 SEVERE [http-nio-8080-exec-1] org.apache.catalina.core.StandardWrapperValve.invoke Servlet.service() for servlet [dispatcher] threw exception',
  'java.lang.IllegalStateException: order 42 has no lines',
  '\tat com.example.shop.OrderService.total(OrderService.java:57)',
  '\tat com.example.shop.OrderController.show(OrderController.java:31)',
  '\tat java.base/java.lang.Thread.run(Thread.java:840)',
  'Caused by: java.sql.SQLException: connection closed',
  '\tat com.example.shop.Db.query(Db.java:12)',
  '\t... 3 more',
].join('\n');
/** Logback's default pattern (Spring Boot's console) with a trace below it. */
export const LOGBACK_TRACE = [
  '2026-11-28T10:00:00.123Z ERROR 4242 --- [           main] com.example.shop.App                     : payment failed',
  'java.lang.IllegalArgumentException: amount must be positive',
  '\tat com.example.shop.Payments.charge(Payments.java:18)',
  '\tat com.example.shop.App.main(App.java:9)',
].join('\n');
/** What the JVM prints for an exception no one caught. */
export const UNCAUGHT = 'Exception in thread "main" java.lang.ArithmeticException: / by zero\n\tat Main.main(Main.java:3)';

/** The Go Blog, "Defer, Panic, and Recover", and the runtime's format for an index out of range. */
export const GO_PANIC = [
  'panic: runtime error: index out of range [5] with length 3',
  '',
  'goroutine 1 [running]:',
  'main.main()',
  '\t/tmp/sandbox/prog.go:9 +0x1d',
  'exit status 2',
].join('\n');
export const GO_DEADLOCK = 'fatal error: all goroutines are asleep - deadlock!\n\ngoroutine 1 [chan receive]:\nmain.(*Shop).Wait(0xc000012345)\n\t/app/shop.go:21 +0x2c\nmain.main()\n\t/app/main.go:8 +0x25';

/** Debian's /etc/crontab runs cron.hourly at 17 past: what cron logs for it. */
export const CRON = 'Nov 28 10:17:01 web-1 CRON[12345]: (root) CMD (cd / && run-parts --report /etc/cron.hourly)';

/** Docker's json-file logging driver (docs.docker.com, "JSON File logging driver"). */
export const DOCKER = '{"log":"Log line is here\\n","stream":"stdout","time":"2019-01-01T11:11:11.111111111Z"}';

/** AWS, "Access logs for your Application Load Balancer": its HTTP and HTTPS examples, and a 502. */
export const ALB_HTTP = 'http 2018-07-02T22:23:00.186641Z app/my-loadbalancer/50dc6c495c0c9188 192.168.131.39:2817 10.0.0.1:80 0.000 0.001 0.000 200 200 34 366 "GET http://www.example.com:80/ HTTP/1.1" "curl/7.46.0" - - arn:aws:elasticloadbalancing:us-east-2:123456789012:targetgroup/my-targets/73e2d6bc24d8a067 "Root=1-58337262-36d228ad5d99923122bbe354" "-" "-" 0 2018-07-02T22:22:48.364000Z "forward" "-" "-" "10.0.0.1:80" "200" "-" "-" TID_1234abcd5678ef90';
export const ALB_HTTPS = 'https 2018-07-02T22:23:00.186641Z app/my-loadbalancer/50dc6c495c0c9188 192.168.131.39:2817 10.0.0.1:80 0.086 0.048 0.037 200 200 0 57 "GET https://www.example.com:443/ HTTP/1.1" "curl/7.46.0" ECDHE-RSA-AES128-GCM-SHA256 TLSv1.2 arn:aws:elasticloadbalancing:us-east-2:123456789012:targetgroup/my-targets/73e2d6bc24d8a067 "Root=1-58337281-1d84f3d73c47ec4e58577259" "www.example.com" "arn:aws:acm:us-east-2:123456789012:certificate/12345678-1234-1234-1234-123456789012" 1 2018-07-02T22:22:48.364000Z "authenticate,forward" "-" "-" "10.0.0.1:80" "200" "-" "-" TID_1234abcd5678ef90';
export const ALB_502 = 'https 2018-07-02T22:23:00.186641Z app/my-loadbalancer/50dc6c495c0c9188 192.168.131.39:2817 10.0.0.1:80 0.001 -1 -1 502 - 0 0 "GET https://www.example.com:443/pay HTTP/1.1" "curl/7.46.0" ECDHE-RSA-AES128-GCM-SHA256 TLSv1.2 arn:aws:elasticloadbalancing:us-east-2:123456789012:targetgroup/my-targets/73e2d6bc24d8a067 "Root=1-58337281-1d84f3d73c47ec4e58577259" "www.example.com" "-" 1 2018-07-02T22:22:48.364000Z "forward" "-" "TargetResponseError" "10.0.0.1:80" "-" "-" "-" TID_1234abcd5678ef90';

/** Amazon CloudFront, "Standard logs (access logs)": its two examples, tab-separated. */
export const CLOUDFRONT_HIT = ['2019-12-04', '21:02:31', 'LAX1', '392', '192.0.2.100', 'GET', 'd111111abcdef8.cloudfront.net', '/index.html', '200', '-', 'Mozilla/5.0%20(Windows%20NT%2010.0;%20Win64;%20x64)%20AppleWebKit/537.36%20(KHTML,%20like%20Gecko)%20Chrome/78.0.3904.108%20Safari/537.36', '-', '-', 'Hit', 'SOX4xwn4XV6Q4rgb7XiVGOHms_BGlTAC4KyHmureZmBNrjGdRLiNIQ==', 'd111111abcdef8.cloudfront.net', 'https', '23', '0.001', '-', 'TLSv1.2', 'ECDHE-RSA-AES128-GCM-SHA256', 'Hit', 'HTTP/2.0', '-', '-', '11040', '0.001', 'Hit', 'text/html', '78', '-', '-'].join('\t');
export const CLOUDFRONT_ERROR = ['2019-12-13', '22:36:27', 'SEA19-C1', '900', '192.0.2.200', 'GET', 'd111111abcdef8.cloudfront.net', '/favicon.ico', '502', 'http://www.example.com/', 'Mozilla/5.0%20(Windows%20NT%2010.0;%20Win64;%20x64)%20AppleWebKit/537.36%20(KHTML,%20like%20Gecko)%20Chrome/78.0.3904.108%20Safari/537.36', '-', '-', 'Error', '1pkpNfBQ39sYMnjjUQjmH2w1wdJnbHYTbag21o_3OfcQgPzdL2RSSQ==', 'www.example.com', 'http', '675', '0.102', '-', '-', '-', 'Error', 'HTTP/1.1', '-', '-', '25260', '0.102', 'OriginDnsError', 'text/html', '507', '-', '-'].join('\t');

/** HAProxy's configuration manual, section 8.2.3 (HTTP log format) and 8.2.2 (TCP log format). */
export const HAPROXY_HTTP = '10.0.1.2:33317 [06/Feb/2009:12:14:14.655] http-in static/srv1 10/0/30/69/109 200 2750 - - ---- 1/1/1/1/0 0/0 {1wt.eu} {} "GET /index.html HTTP/1.1"';
export const HAPROXY_TCP = '10.0.1.2:33313 [06/Feb/2009:12:12:51.443] fnt bck/srv1 0/0/5007 212 -- 0/0/0/0/3 0/0';
