package autoswitch.cluster;

import java.io.File;
import java.io.FileInputStream;
import java.io.InputStream;
import java.util.Properties;
import org.apache.rocketmq.auth.config.AuthConfig;
import org.apache.rocketmq.broker.BrokerController;
import org.apache.rocketmq.common.BrokerConfig;
import org.apache.rocketmq.common.ControllerConfig;
import org.apache.rocketmq.common.JraftConfig;
import org.apache.rocketmq.common.MQVersion;
import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.common.namesrv.NamesrvConfig;
import org.apache.rocketmq.controller.ControllerManager;
import org.apache.rocketmq.namesrv.NamesrvController;
import org.apache.rocketmq.remoting.netty.NettyClientConfig;
import org.apache.rocketmq.remoting.netty.NettyServerConfig;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.store.config.MessageStoreConfig;

/**
 * One server process of the cluster: {@code Node namesrv PROPS} (a name server, with the controller embedded when
 * {@code enableControllerInNamesrv}), {@code Node controller PROPS} (a controller node of its own, as RocketMQ's
 * ControllerStartup starts one: a ControllerManager, one DLedger peer of {@code controllerDLegerPeers}) or
 * {@code Node broker PROPS} (a broker). The properties file is read as
 * RocketMQ's own launchers read theirs (each config object takes the keys it has). Prints "started" once serving.
 * Exits at once when its stdin closes: the process that started it is gone.
 */
public final class Node {
    private Node() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2 || !(args[0].equals("namesrv") || args[0].equals("broker") || args[0].equals("controller"))) {
            System.err.println("usage: Node namesrv|controller|broker PROPERTIES");
            System.exit(2);
        }
        Stdin.exitWhenClosed();
        Properties properties = new Properties();
        try (InputStream in = new FileInputStream(args[1])) {
            properties.load(in);
        }
        System.setProperty(RemotingCommand.REMOTING_VERSION_KEY, Integer.toString(MQVersion.CURRENT_VERSION));
        if (args[0].equals("namesrv")) {
            startNamesrv(properties);
        } else if (args[0].equals("controller")) {
            startController(properties, new NettyServerConfig(), new NettyClientConfig());
        } else {
            startBroker(properties);
        }
        System.out.println("started " + args[0] + " " + MQVersion.getVersionDesc(MQVersion.CURRENT_VERSION));
        System.out.flush();
        Thread.currentThread().join();
    }

    private static void startNamesrv(Properties properties) throws Exception {
        NamesrvConfig namesrvConfig = new NamesrvConfig();
        NettyServerConfig serverConfig = new NettyServerConfig();
        NettyClientConfig clientConfig = new NettyClientConfig();
        MixAll.properties2Object(properties, namesrvConfig);
        MixAll.properties2Object(properties, serverConfig);
        MixAll.properties2Object(properties, clientConfig);
        NamesrvController namesrv = new NamesrvController(namesrvConfig, serverConfig, clientConfig);
        namesrv.getConfiguration().registerConfig(properties);
        if (!namesrv.initialize()) {
            throw new IllegalStateException("NamesrvController.initialize() returned false");
        }
        namesrv.start();
        if (namesrvConfig.isEnableControllerInNamesrv()) {
            startController(properties, (NettyServerConfig) serverConfig.clone(), clientConfig);
        }
    }

    /** A ControllerManager: its DLedger server listens on this node's address in {@code controllerDLegerPeers}. */
    private static void startController(Properties properties, NettyServerConfig serverConfig,
        NettyClientConfig clientConfig) throws Exception {
        ControllerConfig controllerConfig = new ControllerConfig();
        JraftConfig jraftConfig = new JraftConfig();
        controllerConfig.setJraftConfig(jraftConfig);
        MixAll.properties2Object(properties, controllerConfig);
        MixAll.properties2Object(properties, jraftConfig);
        MixAll.properties2Object(properties, serverConfig);
        MixAll.properties2Object(properties, clientConfig);
        ControllerManager manager = new ControllerManager(controllerConfig, serverConfig, clientConfig);
        manager.getConfiguration().registerConfig(properties);
        if (!manager.initialize()) {
            throw new IllegalStateException("ControllerManager.initialize() returned false");
        }
        manager.start();
    }

    private static void startBroker(Properties properties) throws Exception {
        BrokerConfig brokerConfig = new BrokerConfig();
        NettyServerConfig serverConfig = new NettyServerConfig();
        NettyClientConfig clientConfig = new NettyClientConfig();
        MessageStoreConfig storeConfig = new MessageStoreConfig();
        AuthConfig authConfig = new AuthConfig();
        MixAll.properties2Object(properties, brokerConfig);
        MixAll.properties2Object(properties, serverConfig);
        MixAll.properties2Object(properties, clientConfig);
        MixAll.properties2Object(properties, storeConfig);
        MixAll.properties2Object(properties, authConfig);
        if (storeConfig.getHaListenPort() <= 0) {
            storeConfig.setHaListenPort(serverConfig.getListenPort() + 1);
        }
        brokerConfig.setInBrokerContainer(false);
        System.setProperty("brokerLogDir", "");
        authConfig.setConfigName(brokerConfig.getBrokerName());
        authConfig.setClusterName(brokerConfig.getBrokerClusterName());
        authConfig.setAuthConfigPath(storeConfig.getStorePathRootDir() + File.separator + "config");
        // autoswitchHaAddress (ours, --cut): the HA address the broker advertises, a proxy in front of its HA port
        String advertisedHa = properties.getProperty("autoswitchHaAddress");
        BrokerController broker = advertisedHa == null
            ? new BrokerController(brokerConfig, serverConfig, clientConfig, storeConfig, authConfig)
            : new BrokerController(brokerConfig, serverConfig, clientConfig, storeConfig, authConfig) {
                @Override
                public String getHAServerAddr() {
                    return advertisedHa;
                }
            };
        broker.getConfiguration().registerConfig(properties);
        if (!broker.initialize()) {
            throw new IllegalStateException("BrokerController.initialize() returned false");
        }
        broker.start();
    }
}
