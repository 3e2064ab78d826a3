#!/usr/bin/env bash
# Runs the Spark benchmark (dev.quiver.spark.bench.SparkBench): Quiver's extension against Spark's
# codegen on a haversine RowFn over Parquet, in local mode. Arguments go to SparkBench:
#   spark/bench.sh --rows 10M --iterations 5 --threads 2
# Builds the modules it needs first (offline if ~/.m2 has everything).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source ci/java.sh
mvn -B -q -ntp install -DskipTests -Dquiver.lint.skip=true -pl spark -am
mvn -B -q -ntp test-compile -pl spark
mvn_quiet() { mvn -B -q -ntp -Dstyle.color=never "$@" | sed 's/\x1b\[[0-9;]*m//g'; }
cp=$(mvn_quiet dependency:build-classpath -pl spark -Dmdep.includeScope=test -Dmdep.outputFile=/dev/stdout)
opts=$(mvn_quiet help:evaluate -pl spark -Dexpression=quiver.jvm.options -DforceStdout)
spark_opts=$(mvn_quiet help:evaluate -pl spark -Dexpression=spark.jvm.options -DforceStdout)
# HotSpot signal chaining: PoCL builds kernels with LLVM in-process (README, "OpenCL and the JVM's signals").
export LD_PRELOAD="$JAVA_HOME/lib/libjsig.so${LD_PRELOAD:+:$LD_PRELOAD}"
# shellcheck disable=SC2086
exec "$JAVA_HOME/bin/java" $opts $spark_opts -Xmx${BENCH_HEAP:-6g} -Dlog4j2.configurationFile=spark/src/test/resources/log4j2-test.properties \
  -cp "spark/target/test-classes:spark/target/classes:$cp" dev.quiver.spark.bench.SparkBench "$@"
